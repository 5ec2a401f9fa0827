// Element-wise binary kernels on two arrays of one shape: y[i] = a[i] op b[i].
// Same 2-D dispatch and exact-size bindings as elementwise.wgsl.

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(256)
fn vec_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = a[i] + b[i];
}

@compute @workgroup_size(256)
fn vec_sub(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = a[i] - b[i];
}

@compute @workgroup_size(256)
fn vec_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = a[i] * b[i];
}
