"""The op tables, each op declared once: `ops` (the fixed-kernel ops: relu ... convolve2d: kind,
WGSL entry, parameters, NumPy implementation, FLOPs, example), `ufuncs` (the n-d element-wise ops
and reductions under NumPy's names: dtype rules, WGSL function, NumPy implementation) and
`samples` (the shapes calibration measures each kind at). The public functions, stubs, docs rows,
CommandBatch methods and the test matrix are generated from these. Imports only pycore.array."""
