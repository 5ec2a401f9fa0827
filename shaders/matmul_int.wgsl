// Integer matmul: C[z, i, j] = sum over k of A[z, i, k] * B[z, k, j] in i32 or u32, wrapping as
// NumPy's int32 and uint32 do, any strides (transposed and broadcast operands read where they
// lie), batch axes broadcast. pycore/kernels/matmul.py fills in this template for a dtype and a
// batch rank. One thread per element of C (integer products gain little from the float kernels'
// register blocking, and integer matmul is rare enough); a 16 x 16 workgroup covers a 16 x 16 tile,
// the batch index is the grid's z. Words: 0 M, 1 N, 2 K, 3 and 4 A's row and column strides, 5 and
// 6 B's, 7 A's offset, 8 B's offset, then the batch shape and each operand's batch strides.

@group(0) @binding(0) var<storage, read> A: array<{{t}}>;
@group(0) @binding(1) var<storage, read> B: array<{{t}}>;
@group(0) @binding(2) var<storage, read_write> C: array<{{t}}>;
@group(0) @binding(3) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(16, 16)
fn matmul_int(@builtin(global_invocation_id) gid: vec3<u32>) {
    let m = word(0u);
    let n = word(1u);
    let k = word(2u);
    let i = gid.y;
    let j = gid.x;
    if (i >= m || j >= n) { return; }
    var a_at = iword(7u) + i32(i) * iword(3u);
    var b_at = iword(8u) + i32(j) * iword(6u);
{{batch}}
    var acc = {{t}}(0);
    for (var p = 0u; p < k; p = p + 1u) {
        acc = acc + A[u32(a_at + i32(p) * iword(4u))] * B[u32(b_at + i32(p) * iword(5u))];
    }
    C[(gid.z * m + i) * n + j] = acc;
}
