// A direct convolution (cross-correlation, as PyTorch's convNd) of x (N, C, *spatial) with
// w (O, C / groups, *kernel), read through their strides, into a C-ordered (N, O, *out):
// pycore/kernels/conv.py fills in this template for each number of spatial axes (1 to 3) and
// with or without a bias, after common.wgsl. One thread per output element sums its group's
// C / groups channels times the kernel's taps in order (channel, then each kernel offset in C
// order), as the im2col product does; a tap over the zero padding multiplies 0 by its weight (so
// a non-finite weight there gives NaN, as with padded zeros). Words of `words`: 0 outputs,
// 1 output channels O, 2 channels per group, 3 output channels per group, 4 x's offset, 5 and 6
// x's batch and channel strides, 7 w's offset, 8 and 9 w's output- and input-channel strides,
// 10 the bias' offset, 11 its stride, then per spatial axis (see conv.py): the output's size,
// x's size, x's stride, the kernel's size, w's stride, the stride, the padding before, the dilation.
// x, w and the bias are float32, or float16 read from their u32 words (summed in float32 either way).

@group(0) @binding(0) var<storage, read> x: array<{{x_type}}>;
@group(0) @binding(1) var<storage, read> w: array<{{w_type}}>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;
{{bias_binding}}

// element i of x, w and the bias as f32 (a float16 operand's from its u32 words)
{{loaders}}

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(WORKGROUP)
fn conv(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= word(0u)) { return; }
    var rem = i;
{{position}}
    let o = rem % word(1u);
    let n = rem / word(1u);
    let g = o / word(3u);
    let cg = word(2u);
    let xb = iword(4u) + i32(n) * iword(5u) + i32(g * cg) * iword(6u);
    let wb = iword(7u) + i32(o) * iword(8u);
    var acc = 0.0;
    for (var c = 0u; c < cg; c = c + 1u) {
        let xc = xb + i32(c) * iword(6u);
        let wc = wb + i32(c) * iword(9u);
{{taps}}
    }
{{bias}}
    out[i] = acc;
}
