# How fast does each vision stem learn which characters each image cell holds? Glyph objective only.
import sys, time, torch, torch.nn as nn, torch.nn.functional as F
from saccade.config import default_config
from saccade.data import RegionStream
from saccade.model import SaccadeOCR
from saccade.glyphs import glyph_loss
from saccade.synth import generate_region, corpus
import functools
torch.set_num_threads(1); torch.manual_seed(0)
corpus.set_unpredictable_share(0.7)
cfg = default_config()
gen = functools.partial(generate_region, kind='text')
it = iter(RegionStream(gen, cfg, first_seed=77_000_000, token_budget=1536, max_target_tokens=128))
N = int(sys.argv[1]); t0 = time.time()
batches = [next(it) for _ in range(N)]
print('generated', N, 'batches in', round(time.time() - t0), 's', flush=True)

class ConvStem(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.c1 = nn.Conv2d(1, 32, 3, 2, 1); self.c2 = nn.Conv2d(32, 64, 3, 2, 1); self.c3 = nn.Conv2d(64, dim, 4, 4)
    def forward(self, patch_list, grids):
        out = []
        for p, (hp, wp) in zip(patch_list, grids):
            img = p.view(hp, wp, 16, 16).permute(0, 2, 1, 3).reshape(1, 1, hp * 16, wp * 16)
            x = self.c3(F.gelu(self.c2(F.gelu(self.c1(img)))))
            out.append(x[0].flatten(1).t())  # [hp*wp, dim] row-major
        return out

for variant in sys.argv[2:]:
    torch.manual_seed(0)
    model = SaccadeOCR(cfg)
    if variant == 'conv':
        stem = ConvStem(cfg['vision_config']['hidden_size'])
        model.vision.patch_embed = nn.Linear(cfg['vision_config']['hidden_size'], cfg['vision_config']['hidden_size'])
        orig = model.vision.forward
        def fwd(patch_list, grids, stem=stem, orig=orig):
            return orig([s for s in stem(patch_list, grids)], grids)
        model.vision.forward = fwd
        extra = list(stem.parameters())
    else:
        extra = []
    head = nn.Linear(cfg['text_config']['hidden_size'], cfg['text_config']['vocab_size'])
    params = list(model.vision.parameters()) + list(model.merger.parameters()) + list(head.parameters()) + extra
    opt = torch.optim.AdamW(params, lr=3e-3, betas=(0.9, 0.98), weight_decay=0.01)
    t0 = time.time(); run = []
    for i, b in enumerate(batches * 4):
        loss = glyph_loss(head, model.encode_images(b['patches'], b['grids']), b['glyphs'])
        opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(params, 1.0); opt.step()
        run.append(loss.item())
        if (i + 1) % 25 == 0:
            print(variant, i + 1, round(sum(run[-25:]) / 25, 3), round(time.time() - t0), 's', flush=True)
