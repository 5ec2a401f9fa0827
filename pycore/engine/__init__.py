"""The engine: the only part of pycore that touches the device. `executor` runs any plan of
pycore.kernels on a `session` (one call's buffers, uploads, pipelines, dispatches and read);
`device` holds the GPU device, its pipeline cache, its queue of work not yet submitted and the
error checks; `pool` reuses buffers; `transport` is the interface `browser` (WebGPU through
Pyodide, with `bridge.js`) and `native` (wgpu-py) implement; `runtime` acquires the device and
keeps the trace; `interrupts`, `progress` and `settings` are its ties to the console and the
saved state. Imports pycore.kernels (for WGSL sources) and below."""
