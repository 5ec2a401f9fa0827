// Element-wise binary ops on two arrays of one shape: y[i] = a[i] op b[i], a vec4 per thread; one
// function each, whose kernel is generated as for elementwise.wgsl.

fn vec_add_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x + y; }
fn vec_sub_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x - y; }
fn vec_mul_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x * y; }

// ---- the kernels: generated from the functions above by pycore/kernels/elementwise.py (one op,
// or a fused chain of them: shaders/strided.wgsl is the template).
