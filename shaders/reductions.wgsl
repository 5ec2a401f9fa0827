// How each reduction combines two partial results, on values of one type: `<name>_<type>` (c64: a
// complex64 value as vec2<f32>), or
// `<name>_T` for every numeric type (instantiated as for ufuncs.wgsl). pycore/kernels/reduction.py
// fills in shaders/reduction.wgsl with one of them; identities come from the host (WGSL has no
// infinity literal). An arg reduction's function says whether (b, ib) replaces (a, ia): the first
// index wins ties, and the first NaN wins over everything, as numpy.argmax and numpy.argmin.

fn sum_T(a: T, b: T) -> T { return a + b; }
fn prod_T(a: T, b: T) -> T { return a * b; }
// complex64 (re, im): the schoolbook product, NaN + NaN i where a part is NaN (as multiply_c64 of
// shaders/complex.wgsl, the element-wise product)
fn prod_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let p = vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    let n = bitcast<f32>(0x7fc00000u | (bitcast<u32>(p.x) & 0u));  // (not a constant: WGSL has no NaN constants)
    return select(p, vec2<f32>(n), is_nan(a.x) || is_nan(a.y) || is_nan(b.x) || is_nan(b.y));
}
fn max_f32(a: f32, b: f32) -> f32 { return select(select(select(b, a, a > b), a, is_nan(a)), b, is_nan(b) & !is_nan(a)); }
fn min_f32(a: f32, b: f32) -> f32 { return select(select(select(b, a, a < b), a, is_nan(a)), b, is_nan(b) & !is_nan(a)); }
fn max_T(a: T, b: T) -> T { return max(a, b); }
fn min_T(a: T, b: T) -> T { return min(a, b); }
fn all_u32(a: u32, b: u32) -> u32 { return a & b; }
fn any_u32(a: u32, b: u32) -> u32 { return a | b; }

fn argmax_f32(a: f32, ia: u32, b: f32, ib: u32) -> bool {
    let nan_a = is_nan(a);
    let nan_b = is_nan(b);
    return select(b > a || (b == a && ib < ia), nan_b && (!nan_a || ib < ia), nan_a || nan_b);
}
fn argmin_f32(a: f32, ia: u32, b: f32, ib: u32) -> bool {
    let nan_a = is_nan(a);
    let nan_b = is_nan(b);
    return select(b < a || (b == a && ib < ia), nan_b && (!nan_a || ib < ia), nan_a || nan_b);
}
fn argmax_T(a: T, ia: u32, b: T, ib: u32) -> bool { return b > a || (b == a && ib < ia); }
fn argmin_T(a: T, ia: u32, b: T, ib: u32) -> bool { return b < a || (b == a && ib < ia); }
