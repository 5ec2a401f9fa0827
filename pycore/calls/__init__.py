"""The call layer: what a public call does, from arguments to result. `programs` holds the class of
each fixed kernel kind (its checks, what the device cannot take, its NumPy path, and how it plans
and runs on a session); `dispatch` runs a fixed op (checks, backend, replay, trace), `nd` runs the
n-d ops (dtypes, layouts, broadcasting, plans cached and replayed); `api` makes the public
functions of the op table; `gpuarray` is the GpuArray (views without a dispatch, copies, reads)
and `batch` the CommandBatch. The Array API namespace: `creation`, `manipulation` and `datatypes`
hold its functions, `namespace` gathers them; `arguments` checks the arguments they share and
`placing` says where each runs and runs its placing plans; `selection`, `sorting` and `linalg` hold
the selection, sorting and linear algebra functions. Imports every layer below."""
