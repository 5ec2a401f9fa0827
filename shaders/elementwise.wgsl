// Element-wise unary kernels: y[i] = f(x[i]; params), one thread per element, 256 per workgroup.
//
// Dispatch is 2-D so that more than 65,535 workgroups (16.7M elements) still work: the host
// dispatches (x, y) workgroups with x <= maxComputeWorkgroupsPerDimension, and the flat index is
// gid.x + gid.y * (x * 256). Input and output are bound with their exact byte size, so
// arrayLength() is the element count and threads past it return.
//
// Numerics: NaN must pass through as in NumPy, and WGSL leaves min/max/clamp of NaN to the
// implementation, so comparisons + select() are used. Transcendentals are written in forms that
// cannot overflow to NaN (WGSL's tanh is undefined past |x| ~ 88.7 and NaN on some drivers past ~44).

struct Params { p0: f32, p1: f32, p2: f32, p3: f32, p4: f32, p5: f32, p6: f32, p7: f32 }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;


// 1 / (1 + e^-x) without overflow: e^-|x| is always in (0, 1].
fn sigmoid_f(x: f32) -> f32 {
    let e = exp(-abs(x));
    return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}

// tanh(x) = sign(x) (1 - e^-2|x|) / (1 + e^-2|x|); below 2^-12 tanh(x) = x to float32 precision.
fn tanh_f(x: f32) -> f32 {
    let e = exp(-2.0 * abs(x));
    let t = (1.0 - e) / (1.0 + e);
    return select(sign(x) * t, x, abs(x) < 0.000244140625);
}

// x * s where s -> 0 makes the product 0 (not -inf * 0 = NaN) at x = -inf.
fn gate(x: f32, s: f32) -> f32 {
    return select(x * s, 0.0, s == 0.0);
}

// Decided on the bits, not on `v < 0`: a GPU that flushes subnormals would see -1e-40 as -0 and
// let it through; the sign bit makes relu exact for every input (NaN of either sign stays NaN).
@compute @workgroup_size(256)
fn relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    let negative = (bitcast<u32>(v) >> 31u) == 1u && !is_nan(v);
    dst[i] = select(v, 0.0, negative);
}

// p0 = alpha
@compute @workgroup_size(256)
fn leaky_relu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    dst[i] = select(v, params.p0 * v, v < 0.0);
}

// p0 = alpha; x > 0 ? x : alpha (e^x - 1)
@compute @workgroup_size(256)
fn elu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    dst[i] = select(params.p0 * (exp(min(v, 0.0)) - 1.0), v, v > 0.0 || is_nan(v));
}

@compute @workgroup_size(256)
fn sigmoid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = sigmoid_f(src[i]);
}

@compute @workgroup_size(256)
fn tanh_(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = tanh_f(src[i]);
}

// x * sigmoid(x)
@compute @workgroup_size(256)
fn swish(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    dst[i] = gate(v, sigmoid_f(v));
}

// tanh approximation: 0.5 x (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
@compute @workgroup_size(256)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    let u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
    dst[i] = gate(v, sigmoid_f(2.0 * u));
}

// Exact form 0.5 x (1 + erf(x / sqrt 2)); erf from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
fn erf_f(x: f32) -> f32 {
    let a = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return sign(x) * (1.0 - poly * exp(-a * a));
}

@compute @workgroup_size(256)
fn gelu_erf(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    dst[i] = gate(v, 0.5 * (1.0 + erf_f(0.7071067811865476 * v)));
}

// p0 = lower bound, p1 = upper bound (the host checks p0 <= p1)
@compute @workgroup_size(256)
fn clip(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    let v = src[i];
    dst[i] = select(select(v, params.p0, v < params.p0), params.p1, v > params.p1);
}

// p0 = factor
@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = src[i] * params.p0;
}
