// The arithmetic of an element-wise function with no memory traffic, for benchmarks
// (scripts/arith_bench.py): pycore/bench/arithmetic.py fills in this template for a function of
// shaders/ufuncs.wgsl (`<name>_f32`, on vec4s) or shaders/complex.wgsl (`<name>_c64`, on C4s), after
// the libraries the element-wise kernels are assembled from. Each thread makes `steps` (word 0)
// groups of four values from a hash of its index (a complex value's parts, or a binary function's
// two operands, from the two halves of one hash: uniform in (-scale, scale), scale / 32768 in word
// 1; a complex scalar operand's parts in words 2 and 3), calls the function on them as the
// element-wise kernel does, sums the results in registers and writes one float. A dispatch's time
// is then the function's arithmetic and the hash's (the copy function's kernel times the hash alone).

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> words: vec4<u32>;

// a 32-bit hash of i (multiply and xorshift)
fn mix32(i: u32) -> u32 {
    let h = (i * 0x9e3779b1u) ^ ((i * 0x9e3779b1u) >> 15u);
    let g = h * 0x85ebca77u;
    return g ^ (g >> 13u);
}

@compute @workgroup_size(WORKGROUP)
fn arithmetic(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = flat_index(gid, groups);
    let steps = words.x;
    let scale = bitcast<f32>(words.y);
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k < steps; k = k + 1u) {
        let i = (t * steps + k) * 4u;
        let h = vec4<u32>(mix32(i), mix32(i + 1u), mix32(i + 2u), mix32(i + 3u));
        let lo = (vec4<f32>(h & vec4<u32>(0xffffu)) - 32768.0) * scale;
        let hi = (vec4<f32>(h >> vec4<u32>(16u)) - 32768.0) * scale;
        let y = {{call}};
        acc = acc + {{fold}};
    }
    out[t] = acc.x + acc.y + acc.z + acc.w;
}
