// PP-OCRv6 small's recogniser (vision_config.encoder.kind "pp_ocrv6"; training/saccade/line_encoder_v6.py is its
// reference): a stem of two stride-2 stages, MetaFormer blocks, then the light SVTR neck and the CTC head. Maps
// are row-major [H, W, C]; a 48-pixel line of width W becomes [12, W / 4] after the stem and [3, W / 4] after the
// blocks, pooled to one row of T = W / 8 columns.
#include "model/image_preprocess.h"
#include "model/line_encoder.h"
#include "model/model.h"

namespace saccade {

namespace {

// A k x k convolution (zero padding k / 2), its bias and a relu:
// src [H, W, C_in] -> [ceil(H / s), ceil(W / s), w.rows].
Buffer conv_relu(Backend& be, const float* src, int* H, int* W, int C, int k, int s, const Weight& w,
                 const Buffer& bias) {
  const int Ho = (*H + s - 1) / s, Wo = (*W + s - 1) / s;
  Buffer y(&be, size_t(Ho) * Wo * w.rows, Contents::Undefined);
  be.conv(src, *H, *W, C, k, k, s, s, w, bias.data(), true, y.data());
  *H = Ho;
  *W = Wo;
  return y;
}

}  // namespace

LineFeatures line_encoder_v6(Model& m, const PreparedImage& im) {
  Backend& be = *m.backend;
  const LineVision& lv = *m.line;
  const LineStemV6& st = lv.v6_stem;
  const LineEncoderConfig& e = m.cfg.vision.encoder;
  int H = im.height, W = im.width;

  Buffer x(&be, im.pixels.size(), Contents::Undefined);
  be.upload(x.data(), im.pixels.data(), im.pixels.size());
  // conv1 on the grey line (its three input channels' weights summed at load): [24, W / 2, mid]
  Buffer s1 = conv_relu(be, x.data(), &H, &W, 1, 3, 2, st.conv1, st.conv1_b);
  const int mid = st.conv1.rows;
  // The 2x2 pair beside the 2x2 max pool, concatenated channel-wise as [pool; pair] (the graph's order).
  int h = H, w = W;
  Buffer a = conv_relu(be, s1.data(), &h, &w, mid, 3, 1, st.conv2a, st.conv2a_b);
  h = H, w = W;
  Buffer b = conv_relu(be, a.data(), &h, &w, mid / 2, 3, 1, st.conv2b, st.conv2b_b);
  Buffer pooled(&be, s1.size(), Contents::Undefined);
  be.max_pool_2x2_same(s1.data(), H, W, mid, pooled.data());
  Buffer cat(&be, size_t(H) * W * 2 * mid, Contents::Undefined);
  be.upsample_nearest(pooled.data(), H, W, mid, 1, cat.data(), 2 * mid, 0);
  be.upsample_nearest(b.data(), H, W, mid, 1, cat.data(), 2 * mid, mid);
  Buffer s3 = conv_relu(be, cat.data(), &H, &W, 2 * mid, 3, 2, st.conv3, st.conv3_b);  // [12, W / 4, mid]
  x = Buffer(&be, size_t(H) * W * e.stem_out, Contents::Undefined);
  be.linear(s3.data(), H * W, st.conv4, st.conv4_b.data(), x.data());
  be.relu(x.data(), x.size());

  int C = e.stem_out;
  for (size_t i = 0; i < lv.v6_blocks.size(); ++i) {
    const LineBlockV6& blk = lv.v6_blocks[i];
    const LineBlockConfig& bc = e.blocks[i];
    const int Ho = (H + bc.stride_h - 1) / bc.stride_h;
    Buffer y(&be, size_t(Ho) * W * C, Contents::Undefined);
    be.depthwise_conv(x.data(), H, W, C, bc.kernel, bc.stride_h, 1, blk.dw.data(), blk.dw_b.data(), y.data());
    H = Ho;
    const int rows = H * W;
    if (bc.se) {
      Buffer mean(&be, size_t(C)), hidden(&be, size_t(bc.se_mid)), gate(&be, size_t(C));
      be.column_mean(y.data(), rows, C, mean.data());
      be.linear(mean.data(), 1, blk.se_reduce, blk.se_reduce_b.data(), hidden.data());
      be.relu(hidden.data(), hidden.size());
      be.linear(hidden.data(), 1, blk.se_expand, blk.se_expand_b.data(), gate.data());
      be.hard_sigmoid(gate.data(), gate.size(), 1.0f / 6, 0.5f);
      be.scale_columns(y.data(), rows, C, gate.data(), 0.0f);
    }
    Buffer mlp(&be, size_t(rows) * bc.hidden, Contents::Undefined);
    be.linear(y.data(), rows, blk.fc1, blk.fc1_b.data(), mlp.data());
    be.gelu(mlp.data(), mlp.size());
    x = Buffer(&be, size_t(rows) * bc.out, Contents::Undefined);
    be.linear(mlp.data(), rows, blk.fc2, blk.fc2_b.data(), x.data());
    if (bc.residual) be.add(x.data(), y.data(), x.size());
    C = bc.out;
  }

  LineFeatures f;
  f.T = W / e.pool_w;
  const int T = f.T, N = e.neck_dim;
  f.backbone = Buffer(&be, size_t(T) * C);
  be.avg_pool(x.data(), H, W, C, e.pool_h, e.pool_w, f.backbone.data());

  Buffer shortcut(&be, size_t(T) * N), hh(&be, size_t(T) * N), along(&be, size_t(T) * N);
  be.linear(f.backbone.data(), T, lv.neck_shortcut, lv.neck_shortcut_b.data(), shortcut.data());
  be.silu(shortcut.data(), shortcut.size());
  be.linear(f.backbone.data(), T, lv.neck_in, lv.neck_in_b.data(), hh.data());
  be.silu(hh.data(), hh.size());
  // The 1 x k depthwise convolution along the line: a one-row map through the k x k kernel's middle row.
  be.depthwise_conv(hh.data(), 1, T, N, e.neck_kernel, 1, 1, lv.neck_dw.data(), lv.neck_dw_b.data(), along.data());
  be.silu(along.data(), along.size());
  be.add(hh.data(), along.data(), hh.size());
  for (const LineMixerLayer& L : lv.mixer) line_mixer_layer(be, L, e, hh.data(), T);
  f.neck = Buffer(&be, size_t(T) * N);
  be.layer_norm(hh.data(), T, N, lv.neck_norm_w.data(), lv.neck_norm_b.data(), 1e-6f, f.neck.data());
  be.add(f.neck.data(), shortcut.data(), f.neck.size());

  f.ctc_logits = Buffer(&be, size_t(T) * e.num_classes, Contents::Undefined);
  be.linear(f.neck.data(), T, lv.ctc, lv.ctc_b.data(), f.ctc_logits.data());
  return f;
}

}  // namespace saccade
