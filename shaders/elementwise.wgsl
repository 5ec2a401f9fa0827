// Element-wise kernels: one thread per element, 256 threads per workgroup.
//
// Dispatch is 2-D so that more than 65,535 workgroups (16.7M elements) still work: the host
// dispatches (x, y) workgroups with x <= maxComputeWorkgroupsPerDimension, and the flat index is
// gid.x + gid.y * (x * 256). The input and output are bound with their exact byte size, so
// arrayLength() is the element count and threads past it return.

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * (groups.x * 256u);
}

// relu(x) = x < 0 ? 0 : x. NaN fails the comparison and passes through, as in NumPy
// (WGSL's max() leaves NaN handling to the implementation, so it is not used).
@compute @workgroup_size(256)
fn relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) {
        return;
    }
    let v = src[i];
    dst[i] = select(v, 0.0, v < 0.0);
}
