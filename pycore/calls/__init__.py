"""The call layer: what a public call does, from arguments to result. `programs` holds the class of
each fixed kernel kind (its checks, what the device cannot take, its NumPy path, and how it plans
and runs on a session); `dispatch` runs a fixed op (checks, backend, replay, trace), `nd` runs the
n-d ops (dtypes, layouts, broadcasting, plans cached and replayed); `api` makes the public
functions of the op table; `gpuarray` is the GpuArray (views without a dispatch, copies, reads)
and `batch` the CommandBatch. Imports every layer below."""
