// Writes a small random float32 checkpoint in the documented format (docs/model-format.md) for the addon
// tests, so they run without the trained model.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

export function writeTinyCheckpoint(name) {
  const dir = join(tmpdir(), `saccade-addon-${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const r = rng(7);
  const P = 8, m = 2, Dv = 32, hv = 16, Iv = 48, D = 64, H = 4, Hkv = 2, d = 16, I = 96, V = 96;
  const tensors = [];
  const add = (n, shape, scale, base = 0) => {
    const len = shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(len);
    for (let i = 0; i < len; i++) v[i] = base + r() * scale;
    tensors.push([n, shape, v]);
  };
  const norm = (n, dim) => add(n, [dim], 0.2, 1);
  add('vision.patch_embed.weight', [Dv, P * P], 0.3);
  add('vision.patch_embed.bias', [Dv], 0.3);
  for (let i = 0; i < 2; i++) {
    const p = `vision.layers.${i}.`;
    norm(p + 'norm1.weight', Dv);
    add(p + 'attn.qkv.weight', [3 * Dv, Dv], 0.3);
    add(p + 'attn.qkv.bias', [3 * Dv], 0.3);
    norm(p + 'attn.q_norm.weight', hv);
    norm(p + 'attn.k_norm.weight', hv);
    add(p + 'attn.proj.weight', [Dv, Dv], 0.3);
    add(p + 'attn.proj.bias', [Dv], 0.3);
    norm(p + 'norm2.weight', Dv);
    add(p + 'mlp.gate_proj.weight', [Iv, Dv], 0.3);
    add(p + 'mlp.up_proj.weight', [Iv, Dv], 0.3);
    add(p + 'mlp.down_proj.weight', [Dv, Iv], 0.3);
  }
  norm('vision.post_norm.weight', Dv);
  add('merger.fc1.weight', [D, m * m * Dv], 0.3);
  add('merger.fc1.bias', [D], 0.3);
  add('merger.fc2.weight', [D, D], 0.3);
  add('merger.fc2.bias', [D], 0.3);
  norm('merger.norm.weight', D);
  add('model.embed_tokens.weight', [V, D], 2);
  for (let i = 0; i < 3; i++) {
    const p = `model.layers.${i}.`;
    norm(p + 'input_layernorm.weight', D);
    add(p + 'self_attn.q_proj.weight', [H * d, D], 0.6);
    add(p + 'self_attn.k_proj.weight', [Hkv * d, D], 0.6);
    add(p + 'self_attn.v_proj.weight', [Hkv * d, D], 0.3);
    add(p + 'self_attn.o_proj.weight', [D, H * d], 0.3);
    norm(p + 'post_attention_layernorm.weight', D);
    add(p + 'mlp.gate_proj.weight', [I, D], 0.3);
    add(p + 'mlp.up_proj.weight', [I, D], 0.3);
    add(p + 'mlp.down_proj.weight', [D, I], 0.3);
  }
  norm('model.norm.weight', D);
  add('lm_head.weight', [V, D], 1);

  const header = {};
  let offset = 0;
  for (const [n, shape, v] of tensors) {
    header[n] = { dtype: 'F32', shape, data_offsets: [offset, offset + v.byteLength] };
    offset += v.byteLength;
  }
  let json = JSON.stringify(header);
  while (json.length % 8) json += ' ';
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const data = Buffer.concat(tensors.map(([, , v]) => Buffer.from(v.buffer)));
  writeFileSync(join(dir, 'model.safetensors'), Buffer.concat([len, Buffer.from(json), data]));

  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    model_type: 'saccade_ocr', format_version: 2, torch_dtype: 'float32',
    vision_config: { patch_size: P, in_channels: 1, hidden_size: Dv, num_layers: 2, num_heads: 2,
      intermediate_size: Iv, merge_size: m, rms_norm_eps: 1e-6, rope_theta: 10000 },
    text_config: { hidden_size: D, num_layers: 3, num_attention_heads: H, num_key_value_heads: Hkv, head_dim: d,
      intermediate_size: I, vocab_size: V, rms_norm_eps: 1e-6, rope_theta: 10000, mrope_section: [2, 3, 3],
      max_position_embeddings: 4096 },
    image: { max_image_tokens: 24, min_height: 32, unit: 16, mean: 0.5, std: 0.5 },
    bos_token_id: 1, eos_token_id: 2, pad_token_id: 0, mask_token_id: 3, image_token_id: 4,
    prompt_token_ids: { text: 5, table: 6, formula: 7 }, diffusion_block_size: 8,
  }));
  const specials = ['<pad>', '<bos>', '<eos>', '<mask>', '<image>', '<text>', '<table>', '<formula>'];
  const vocab = {};
  for (let i = 0; i < V; i++) vocab[i < 8 ? specials[i] : String.fromCharCode(32 + i - 8)] = i;
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({
    version: '1.0', model: { type: 'SaccadeGreedy', vocab },
    added_tokens: specials.map((content, id) => ({ id, content, special: true })),
  }));
  return dir;
}

export function syntheticRegion(id, width, height, seed) {
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) pixels[y * width + x] = (x * 7 + y * 13 + seed * 31 + ((x >> 2) % 3) * 60) & 0xff;
  return { id, kind: 'text', width, height, pixels };
}
