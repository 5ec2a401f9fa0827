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

// Packed float16 (two to a u32 word; see pycore/kernels/plan.py load_packed and pack_word): kernels
// compute in f32, so every adapter reads and writes float16, with or without `shader-f16`.
// The float16 in the low 16 bits of h as the f32 of the same value (exact: subnormals, inf, NaN).
fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0u) {  // zero or a subnormal: m * 2^-24, exact (and normal) in f32
        return bitcast<f32>(bitcast<u32>(f32(m) * 5.9604644775390625e-8) | sign);
    }
    if (e == 31u) {
        return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

// x rounded to the nearest float16 (ties to even), as its 16 bits: past 65504 (from 65520 on) to
// inf, NaN to a quiet NaN, below 2^-14 to a subnormal. (WGSL's pack2x16float leaves rounding and
// out-of-range values to the implementation.)
fn f32_to_f16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return sign | 0x7e00u;
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u;
    }
    if (a < 0x38800000u) {
        return sign | u32(round(bitcast<f32>(a) * 16777216.0));
    }
    let m = a & 0x7fffffu;
    var h = (((a >> 23u) - 112u) << 10u) | (m >> 13u);
    let rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)) {
        h = h + 1u;
    }
    return sign | h;
}
