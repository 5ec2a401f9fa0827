// Element-wise functions of the n-d kernels (pycore/kernels/elementwise.py fills in
// shaders/strided.wgsl with them), on vec4s of one dtype each: `<op>_<type>` with type f32, i32,
// u32 or bool (bool is stored as u32 0 or 1, and its functions take vec4<u32>). A function written
// once for every numeric type ends in `_T` and uses T for its scalar type: the generator
// instantiates it for f32, i32 and u32, except where a function of that type is written out.
// Comparisons return vec4<bool>; the generator stores them as bool (u32 0/1).
//
// Integer arithmetic wraps (WGSL's i32 and u32 are two's complement, as NumPy's int32 and uint32).
// NaN must propagate as in NumPy, and a compiler may fold `x != x`, so float comparisons and
// maximum/minimum test NaN on the bits (is_nan4, common.wgsl).

fn add_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a + b; }
fn subtract_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a - b; }
fn multiply_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a * b; }
fn copy_T(a: vec4<T>) -> vec4<T> { return a; }
fn copy_bool(a: vec4<u32>) -> vec4<u32> { return a; }

// true division: integer inputs are converted to f32 first (the result's dtype is float32)
fn divide_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> { return a / b; }

// Floor division and remainder with NumPy's signs: the remainder takes the divisor's sign, and
// an integer divided by 0 gives 0 (NumPy also warns). Floats: floor(a / b), a - b * floor(a / b).
fn floor_divide_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> { return floor(a / b); }
fn floor_divide_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let zero = b == vec4<i32>(0);
    let d = select(b, vec4<i32>(1), zero);
    let q = a / d;  // truncates; i32 min / -1 wraps to i32 min, as NumPy's
    let inexact = (a - q * d) != vec4<i32>(0);
    let fix = inexact & ((a < vec4<i32>(0)) != (d < vec4<i32>(0)));
    return select(select(q, q - vec4<i32>(1), fix), vec4<i32>(0), zero);
}
fn floor_divide_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let zero = b == vec4<u32>(0u);
    return select(a / select(b, vec4<u32>(1u), zero), vec4<u32>(0u), zero);
}
fn remainder_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> { return a - b * floor(a / b); }
fn remainder_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let zero = b == vec4<i32>(0);
    let d = select(b, vec4<i32>(1), zero);
    let r = a - (a / d) * d;  // truncated remainder, sign of a
    let fix = (r != vec4<i32>(0)) & ((r < vec4<i32>(0)) != (d < vec4<i32>(0)));
    return select(select(r, r + d, fix), vec4<i32>(0), zero);
}
fn remainder_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let zero = b == vec4<u32>(0u);
    return select(a % select(b, vec4<u32>(1u), zero), vec4<u32>(0u), zero);
}

// NaN in either input gives NaN, as numpy.maximum and numpy.minimum
fn maximum_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(select(b, a, a > b), a, is_nan4(a)), b, is_nan4(b));
}
fn minimum_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(select(b, a, a < b), a, is_nan4(a)), b, is_nan4(b));
}
fn maximum_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return max(a, b); }
fn minimum_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return min(a, b); }

// comparisons: a comparison with NaN is false, except not_equal
fn either_nan(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return is_nan4(a) | is_nan4(b); }
fn equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a == b) & !either_nan(a, b); }
fn not_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a != b) | either_nan(a, b); }
fn less_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a < b) & !either_nan(a, b); }
fn less_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a <= b) & !either_nan(a, b); }
fn greater_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a > b) & !either_nan(a, b); }
fn greater_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a >= b) & !either_nan(a, b); }
fn equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a == b; }
fn not_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a != b; }
fn less_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a < b; }
fn less_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a <= b; }
fn greater_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a > b; }
fn greater_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a >= b; }
fn equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a == b; }
fn not_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a != b; }
fn less_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a < b; }  // False < True, as 0 < 1
fn less_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a <= b; }
fn greater_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a > b; }
fn greater_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a >= b; }

// logical operations on bools (other dtypes are converted to bool first: nonzero is true)
fn logical_and_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a & b) != vec4<u32>(0u); }
fn logical_or_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a | b) != vec4<u32>(0u); }
fn logical_xor_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a ^ b) != vec4<u32>(0u); }
fn logical_not_bool(a: vec4<u32>) -> vec4<bool> { return a == vec4<u32>(0u); }
