"""Training augmentation: the ink tint recolours ink and nothing else; the typeface changes
(stroke weight, a wider stretch) touch only the chosen crops."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vision.train.augment import colour, sample_view, stroke_weight, tint_ink  # noqa: E402


def _index_like() -> torch.Tensor:
    """Two 8×8 crops: white paper with a black stroke, and white paper with a red stroke."""
    x = torch.ones(2, 3, 8, 8)
    x[0, :, 2:6, 3:5] = 0.0  # black ink
    x[1, 0, 2:6, 3:5], x[1, 1:, 2:6, 3:5] = 0.8, 0.1  # red ink (RGB)
    return x


def test_tint_makes_black_ink_coloured_and_keeps_paper_white() -> None:
    x = _index_like()
    out = tint_ink(x, torch.tensor([True, True]), torch.Generator().manual_seed(1))
    assert torch.equal(out[:, :, 0, 0], torch.ones(2, 3))  # paper
    ink = out[0, :, 3, 3]
    assert float(ink.max()) > 0.05  # black is now a colour ...
    assert float(ink.max()) <= 0.85 + 1e-6  # ... never as light as the paper
    assert torch.all(out[1, :, 3, 3] >= x[1, :, 3, 3])  # red ink only gets lighter
    assert torch.equal(x, _index_like())  # the input is left as it was


def test_tint_touches_only_the_chosen_images() -> None:
    x = _index_like()
    out = tint_ink(x, torch.tensor([False, True]), torch.Generator().manual_seed(2))
    assert torch.equal(out[0], x[0])
    assert not torch.equal(out[1], x[1])


def test_colour_without_tint_draws_the_same_random_numbers_as_before() -> None:
    """Older training configs (no ink_tint) must reproduce: the tint draws nothing when off."""
    x = torch.rand(4, 3, 48, 48)
    a = colour(x, torch.Generator().manual_seed(3))
    b = colour(x, torch.Generator().manual_seed(3), ink_tint=0.0)
    assert torch.equal(a, b)


def test_stroke_weight_makes_ink_bolder_or_thinner_only_on_the_chosen_crops() -> None:
    x = torch.ones(6, 3, 16, 16)
    x[:, :, 4:12, 6:10] = 0.0  # a 4-px black stroke
    which = torch.tensor([True, True, True, True, True, False])
    out = stroke_weight(x, which, torch.Generator().manual_seed(4))
    ink = (out < 0.5).float().sum(dim=(1, 2, 3)) / 3
    changed = [float(ink[i]) != 32.0 for i in range(5)]
    assert any(changed)  # bolder (more ink) or thinner (less) on the chosen ones
    assert torch.equal(out[5], x[5])
    assert torch.equal(out[:, :, 0, 0], torch.ones(6, 3))  # paper far from ink stays white
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0


def test_sample_view_without_wide_aspect_draws_the_same_random_numbers_as_before() -> None:
    """Older training configs (no glyph_shape) must reproduce."""
    x, up = torch.rand(4, 3, 64, 64), torch.zeros(4, 2)
    a, _ = sample_view(x, up, 48, 0.85, True, torch.Generator().manual_seed(5))
    b, _ = sample_view(x, up, 48, 0.85, True, torch.Generator().manual_seed(5), wide_aspect=None)
    assert torch.equal(a, b)
    c, _ = sample_view(x, up, 48, 0.85, True, torch.Generator().manual_seed(5), wide_aspect=torch.tensor([True, False, False, False]))
    assert not torch.equal(a[0], c[0])
