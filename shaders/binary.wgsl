// Element-wise binary kernels on two arrays of one shape: y[i] = a[i] op b[i], a vec4 per thread.
// Same 2-D dispatch and vec4-rounded bindings as elementwise.wgsl.

fn vec_add_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x + y; }
fn vec_sub_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x - y; }
fn vec_mul_f(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x * y; }

// ---- the kernels (everything above is pure functions, shared with shaders/fused.wgsl)
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP)
fn vec_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = vec_add_f(a[i], b[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn vec_sub(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = vec_sub_f(a[i], b[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn vec_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = vec_mul_f(a[i], b[i]); }
}
