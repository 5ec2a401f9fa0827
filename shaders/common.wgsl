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

// Packed float16 (two to a u32 word; see pycore/kernels/plan.py load_packed, which reads one with
// unpack2x16float, and pack_word): kernels compute in f32, so every adapter reads and writes
// float16, with or without `shader-f16`.

// x rounded to the nearest float16 (ties to even), as its 16 bits: from 65520 on to inf, NaN to a
// quiet NaN, below 2^-14 to a subnormal, without branches (a kernel stores four at a time). The
// hardware conversion (pack2x16float) takes the normal range only: WGSL leaves its result for values
// past 65504 to the implementation, and an adapter may flush its subnormal results to zero.
fn f32_to_f16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let a = b & 0x7fffffffu;
    let sign = (b >> 16u) & 0x8000u;
    let normal = pack2x16float(vec2<f32>(bitcast<f32>(min(a, 0x477fe000u)), 0.0)) & 0x7fffu;
    let small = u32(round(bitcast<f32>(a) * 16777216.0));  // (a multiple of 2^-24: a subnormal's bits)
    var h = select(normal, small, a < 0x38800000u);
    h = select(h, 0x7c00u, a >= 0x477ff000u);
    h = select(h, 0x7e00u, a > 0x7f800000u);
    return sign | h;
}

// Two f32 values rounded to float16 as f32_to_f16 does, in one word (x.x in the low 16 bits).
// Where both are zeros or within float16's normal range (the common case), the hardware's
// conversion of the pair is the answer; a branch, not selects, keeps the rest off that path.
fn f32x2_to_f16(x: vec2<f32>) -> u32 {
    let a = bitcast<vec2<u32>>(x) & vec2<u32>(0x7fffffffu);
    if (all((a <= vec2<u32>(0x477fe000u)) & ((a >= vec2<u32>(0x38800000u)) | (a == vec2<u32>(0u))))) {
        return pack2x16float(x);
    }
    return f32_to_f16(x.x) | (f32_to_f16(x.y) << 16u);
}
