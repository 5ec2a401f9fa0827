// Element-wise unary kernels: y[i] = f(x[i]; params), four elements (one vec4) per thread,
// WORKGROUP threads per workgroup (common.wgsl). Each op is a function on vec4<f32> (`<name>_f`) and a kernel that applies
// it. The functions compose: everything above the kernels is also compiled into the fused kernels
// (shaders/fused.wgsl), which apply a chain of them in one pass.
//
// Dispatch is 2-D so that more than 65,535 workgroups still work: the host dispatches (x, y)
// workgroups with x <= maxComputeWorkgroupsPerDimension, and the flat index is
// gid.x + gid.y * (x * WORKGROUP). Bindings are the element count rounded up to whole vec4s, so
// arrayLength() counts vec4s; the 1-3 padding lanes of the last vec4 are computed and never read.
// vec4 instead of f32 makes these kernels about 4x faster on SwiftShader (measured at 1M and 4M).
//
// Numerics: NaN must pass through as in NumPy, and WGSL leaves min/max/clamp of NaN to the
// implementation, so comparisons + select() are used. Transcendentals are written in forms that
// cannot overflow to NaN (WGSL's tanh is undefined past |x| ~ 88.7 and NaN on some drivers past ~44).

alias V = vec4<f32>;

// 1 / (1 + e^-x) without overflow: e^-|x| is always in (0, 1].
fn sigmoid_v(x: V) -> V {
    let e = exp(-abs(x));
    return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= V(0.0));
}

// tanh(x) = sign(x) (1 - e^-2|x|) / (1 + e^-2|x|); below 2^-12 tanh(x) = x to float32 precision.
fn tanh_v(x: V) -> V {
    let e = exp(-2.0 * abs(x));
    let t = (1.0 - e) / (1.0 + e);
    return select(sign(x) * t, x, abs(x) < V(0.000244140625));
}

// x * s where s -> 0 makes the product 0 (not -inf * 0 = NaN) at x = -inf.
fn gate(x: V, s: V) -> V {
    return select(x * s, V(0.0), s == V(0.0));
}

// erf from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
fn erf_v(x: V) -> V {
    let a = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return sign(x) * (1.0 - poly * exp(-a * a));
}

// ---- the ops, one function each (parameters after the value, in the op table's order)

// Decided on the bits, not on `v < 0`: a GPU that flushes subnormals would see -1e-40 as -0 and
// let it through; the sign bit makes relu exact for every input (NaN of either sign stays NaN).
fn relu_f(v: V) -> V {
    let negative = ((bitcast<vec4<u32>>(v) >> vec4<u32>(31u)) == vec4<u32>(1u)) & !is_nan4(v);
    return select(v, V(0.0), negative);
}

fn leaky_relu_f(v: V, alpha: f32) -> V {
    return select(v, alpha * v, v < V(0.0));
}

// x > 0 ? x : alpha (e^x - 1)
fn elu_f(v: V, alpha: f32) -> V {
    return select(alpha * (exp(min(v, V(0.0))) - 1.0), v, (v > V(0.0)) | is_nan4(v));
}

fn sigmoid_f(v: V) -> V {
    return sigmoid_v(v);
}

fn tanh__f(v: V) -> V {
    return tanh_v(v);
}

// x * sigmoid(x)
fn swish_f(v: V) -> V {
    return gate(v, sigmoid_v(v));
}

// tanh approximation: 0.5 x (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
fn gelu_f(v: V) -> V {
    let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
    return gate(v, sigmoid_v(2.0 * u));
}

// exact form 0.5 x (1 + erf(x / sqrt 2))
fn gelu_erf_f(v: V) -> V {
    return gate(v, 0.5 * (1.0 + erf_v(0.7071067811865476 * v)));
}

// the host checks lo <= hi. The final NaN test is not redundant: NVIDIA's Vulkan driver turns the
// two selects into min/max, which drop NaN (seen on an H200 through wgpu-native).
fn clip_f(v: V, lo: f32, hi: f32) -> V {
    return select(select(select(v, V(lo), v < V(lo)), V(hi), v > V(hi)), v, is_nan4(v));
}

fn scale_f(v: V, s: f32) -> V {
    return v * s;
}

// ---- the kernels (everything above is pure functions, shared with shaders/fused.wgsl)
struct Params { p0: f32, p1: f32, p2: f32, p3: f32, p4: f32, p5: f32, p6: f32, p7: f32 }

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WORKGROUP)
fn relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = relu_f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn leaky_relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = leaky_relu_f(src[i], params.p0); }
}

@compute @workgroup_size(WORKGROUP)
fn elu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = elu_f(src[i], params.p0); }
}

@compute @workgroup_size(WORKGROUP)
fn sigmoid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = sigmoid_f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn tanh_(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = tanh__f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn swish(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = swish_f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = gelu_f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn gelu_erf(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = gelu_erf_f(src[i]); }
}

@compute @workgroup_size(WORKGROUP)
fn clip(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = clip_f(src[i], params.p0, params.p1); }
}

@compute @workgroup_size(WORKGROUP)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < arrayLength(&dst)) { dst[i] = scale_f(src[i], params.p0); }
}
