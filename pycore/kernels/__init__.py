"""Kernel generators and their pure planners: from shapes, strides, dtypes, parameters and the
adapter's facts (`plan.Facts`) to a `Plan` (plan.py) — the kernels to run, what each binds and its
grid — with no device in sight. One module per kernel kind: `elementwise` (n-d element-wise ops
with broadcasting, the activations too), `reduction` (reductions over any axes, and whole-array
ones), `rowwise` (softmax, log_softmax along an axis), `matmul` (the float tile kernels, integer
matmul), `conv2d`; `fusion` generates CommandBatch's fused element-wise chains; `wgsl` reads the
WGSL of shaders/. Imports pycore.array and pycore.tables; engine/executor.py runs what is planned."""
