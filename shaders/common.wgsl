// Helpers shared by every kernel family: pycore/shaders.py prepends this file to each family's
// source (WGSL has no #include).

// Workgroup sizes, defined here only: pycore/shaders.py reads them for the dispatch grids, and the
// benchmark's JavaScript (web/bench/baselines.js) reads them from this file too.
const WORKGROUP: u32 = 256u;  // threads per workgroup of the GPU kernels; a power of two (tree reductions)
const THREAD_GROUP: u32 = 64u;  // threads per workgroup of the CPU-adapter kernels (a row or 16 values each)

// The flat index of a thread of a WORKGROUP-wide 1-D kernel dispatched on a 2-D grid of workgroups
// (the host splits more than 65,535 workgroups over y): gid.x + gid.y * (groups.x * WORKGROUP).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * (groups.x * WORKGROUP);
}

// An integer test on the bits: `x != x` may be folded away by a compiler that assumes no NaNs.
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_nan4(x: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
}

fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u;
}
