"""The engine: the part of pycore that touches the device. `executor` runs any plan of
pycore/kernels on a GpuSession (buffers, uploads, pipelines, dispatches, reads). The device, its
pool and the transports (device.py, pool.py, gpu.py, browser.py, native.py) move here as the
fixed-kernel ops move onto plans."""
