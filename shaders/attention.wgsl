// Scaled dot-product attention in one kernel: softmax(q k^T * scale + mask) v for every batch
// entry (batch and heads, flattened), never writing the scores. pycore/kernels/attention.py fills
// in this template for each (head sizes, mask kind, causal, batch rank), after common.wgsl.
//
// A workgroup of BR threads takes BR consecutive queries of one batch entry, a thread each: its
// query row (times the scale) and its output row stay in registers. The keys are walked in tiles
// of BC: the workgroup loads a tile of k and of v into workgroup memory (each element once, by
// neighbouring threads; on a GPU each thread reads its part of the next tile into registers
// before computing on this one, so the loads' latency hides behind the arithmetic),
// then each thread computes its BC scores, the tile's maximum, and folds
// the tile into a running softmax (the running maximum m, the sum l of exp(score - m), and the
// output row scaled by exp(m_old - m_new) before the tile's exp(score - m) v_j are added): no
// score is kept past its tile. With is_causal, tiles past the block's last query are skipped.
// A row whose every key is masked gives NaN, as the unfused softmax does; NaN and +inf scores
// give NaN rows, as there.
//
// The keys may be walked in parts (PARTS > 1: few workgroups for the GPU, or causal blocks of
// unequal lengths): a workgroup then takes one part of its block's keys and writes each query's
// unnormalized output row, its maximum m and its sum l (Dv + 2 floats) to `out`, and
// shaders/attention_parts.wgsl combines the parts. A part past a causal block's last query walks
// nothing (m = -inf, l = 0).
//
// q, k and v are float32, or float16 read from their u32 words (computed in float32 either way).
//
// Words of `words`: 0 queries L, 1 keys S, 2 q's and k's dim D, 3 v's dim Dv, 4 the scale (f32
// bits), 5 query blocks per batch entry, 6 batch entries, 7 keys per tile (BC), 8-11 the offsets
// of q, k, v and the mask, 12-19 the row and column strides of q, k, v and the mask, 20 keys per
// part (whole tiles), 21 parts, then the batch shape (collapsed) and each operand's strides over
// it (q, k, v, mask).

@group(0) @binding(0) var<storage, read> q: array<{{q_type}}>;
@group(0) @binding(1) var<storage, read> k: array<{{k_type}}>;
@group(0) @binding(2) var<storage, read> v: array<{{v_type}}>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;
{{mask_binding}}

const BR: u32 = {{br}}u;  // queries per workgroup (a thread each)
const BC: u32 = {{bc}}u;  // keys per tile
const D4: u32 = {{d4}}u;  // vec4s of a q or k row (zero-padded)
const V4: u32 = {{v4}}u;  // vec4s of a v or output row (zero-padded)
const NEG_INF: u32 = 0xff800000u;

var<workgroup> kt: array<vec4<f32>, {{kt_size}}>;
var<workgroup> vt: array<vec4<f32>, {{vt_size}}>;

// element i of q, k and v as f32 (a float16 operand's from its u32 words)
{{loaders}}

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(BR)
fn attend(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) groups: vec3<u32>) {
    let n_q = word(0u);
    let n_k = word(1u);
    let d = word(2u);
    let dv = word(3u);
    // the loops' bounds: D4, V4 and BC where the compiler should unroll the loops (a GPU's keeps
    // the rows in registers then), or the same numbers read at run time (a CPU adapter's compiler
    // takes minutes over the unrolled loops)
    let d4r = (d + 3u) / 4u;
    let v4r = (dv + 3u) / 4u;
    let bcr = word(7u);
    let parts = word(21u);
    let part = (wid.x + wid.y * groups.x) % parts;
    let group = (wid.x + wid.y * groups.x) / parts;  // (batch entry, block of queries)
    let b = min(group / word(5u), word(6u) - 1u);  // (a grid split over y may have spare groups)
    let i0 = (group % word(5u)) * BR;
    let i = i0 + t;
    let live = group / word(5u) < word(6u) && i < n_q;
    let k_lo = part * word(20u);
    let qi = min(i, n_q - 1u);
    var qb = iword(8u);
    var kb = iword(9u);
    var vb = iword(10u);
    var mb = iword(11u);
{{batch}}
    let neg_inf = bitcast<f32>(NEG_INF | (n_q & 0u));  // (built at run time: WGSL has no inf constant)
    let scale = bitcast<f32>(word(4u));
    var qr: array<vec4<f32>, D4>;
    for (var c4 = 0u; c4 < {{d4_n}}; c4 = c4 + 1u) {
        var row = vec4<f32>(0.0);
        for (var e = 0u; e < 4u; e = e + 1u) {
            let c = c4 * 4u + e;
            let x = q_at(u32(qb + i32(qi) * iword(12u) + i32(min(c, d - 1u)) * iword(13u)));
            row[e] = select(0.0, x * scale, c < d);
        }
        qr[c4] = row;
    }
    var o: array<vec4<f32>, V4>;
    for (var c4 = 0u; c4 < {{v4_n}}; c4 = c4 + 1u) {
        o[c4] = vec4<f32>(0.0);
    }
    var m = neg_inf;
    var l = 0.0;
    var s: array<f32, BC>;
{{last}}
{{fetch_first}}
    for (var j0 = k_lo; j0 < last; j0 = j0 + BC) {
        workgroupBarrier();  // (every thread is done with the last tile)
{{tile_in}}
        workgroupBarrier();
{{fetch_next}}
        var top = neg_inf;
        for (var j = 0u; j < {{bc_n}}; j = j + 1u) {
            var acc = vec4<f32>(0.0);
            for (var c4 = 0u; c4 < {{d4_n}}; c4 = c4 + 1u) {
                acc = acc + qr[c4] * kt[j * D4 + c4];
            }
            var sj = (acc.x + acc.y) + (acc.z + acc.w);
            let kj = j0 + j;
{{mask}}
            sj = select(neg_inf, sj, kj < n_k);
            s[j] = sj;
            top = max(top, sj);
        }
        let m_new = max(m, top);
        // (while every key so far is masked, m_new is -inf: exp(s - 0) keeps p and l at 0)
        let base = select(m_new, 0.0, bitcast<u32>(m_new) == NEG_INF);
        let fade = exp(m - base);
        l = l * fade;
        for (var c4 = 0u; c4 < {{v4_n}}; c4 = c4 + 1u) {
            o[c4] = o[c4] * fade;
        }
        for (var j = 0u; j < {{bc_n}}; j = j + 1u) {
            let p = exp(s[j] - base);
            l = l + p;
            for (var c4 = 0u; c4 < {{v4_n}}; c4 = c4 + 1u) {
                o[c4] = o[c4] + p * vt[j * V4 + c4];
            }
        }
        m = m_new;
    }
    if (live) {
{{store}}
        for (var c4 = 0u; c4 < {{v4_n}}; c4 = c4 + 1u) {  // (constant bounds: o stays in registers)
            for (var e = 0u; e < 4u; e = e + 1u) {
                let c = c4 * 4u + e;
                if (c < dv) {
                    out[ob + c] = o[c4][e] * inv;
                }
            }
        }
    }
}
