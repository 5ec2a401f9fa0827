"""Kernel generators and their pure planners: from shapes, strides, dtypes, parameters and the
adapter's facts to a `Plan` (plan.py) — the kernels to run, what each binds and its grid — with no
device in sight. `elementwise` plans n-d element-wise ops with broadcasting; `reduction` plans
reductions over any axes. engine/executor.py runs a plan."""
