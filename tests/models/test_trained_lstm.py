"""A trained recurrent model end to end: Resemblyzer's speaker encoder (a 3-layer LSTM over 40 mel
channels, 256 hidden units, then linear, ReLU and L2 normalisation; the weights ship in its PyPI
wheel as resemblyzer/pretrained.pt), on 160-frame partial utterances as Resemblyzer runs it.
Exported by torch.export (aten::lstm.input), converted with the default pipeline (the LSTM is
unrolled by the decompose plugin), run on the built-in interpreter and on onert, compared with
eager PyTorch: every embedding within 1e-5 and a cosine similarity of 1 to 6 digits."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import torch
from torch import nn

from harness import assert_outputs_match, require_success, run_interpreter, run_tico

FRAMES = 160  # Resemblyzer's partials_n_frames


class SpeakerEncoder(nn.Module):
    """Resemblyzer's VoiceEncoder.forward, without its audio front end."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(40, 256, 3, batch_first=True)
        self.linear = nn.Linear(256, 256)
        self.relu = nn.ReLU()

    def forward(self, mels):
        _, (hidden, _) = self.lstm(mels)
        embeds = self.relu(self.linear(hidden[-1]))
        return embeds / torch.norm(embeds, dim=1, keepdim=True)


def trained_encoder() -> SpeakerEncoder:
    spec = importlib.util.find_spec("resemblyzer")  # located, not imported (its audio deps are not installed)
    assert spec is not None and spec.submodule_search_locations, "packaging/install-deps.sh installs resemblyzer==0.1.4"
    weights = Path(list(spec.submodule_search_locations)[0]) / "pretrained.pt"
    state = torch.load(weights, map_location="cpu", weights_only=False)["model_state"]
    model = SpeakerEncoder().eval()
    model.load_state_dict({k: v for k, v in state.items() if not k.startswith("similarity_")})
    return model


def test_trained_lstm_speaker_encoder(tmp_path: Path, tico_run: Path, tico_circle: Path, pipeline: Path):
    from onert import infer

    model = trained_encoder()
    mels = torch.rand(2, FRAMES, 40, generator=torch.Generator().manual_seed(0))  # log-mel-like, in [0, 1)
    with torch.no_grad():
        expected = model(mels).numpy()
        program = torch.export.export(model, (mels,))
    assert any("lstm" in str(n.target) for n in program.graph.nodes), "the export no longer records aten::lstm"
    pt2, circle = tmp_path / "encoder.pt2", tmp_path / "encoder.circle"
    torch.export.save(program, str(pt2))
    require_success(run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(circle)]), "conversion of the speaker encoder")

    run, outputs = run_interpreter(tico_circle, circle, [mels.numpy()], tmp_path / "interpreter")
    require_success(run, "the interpreter on the speaker encoder")
    onert_outputs = [np.array(o) for o in infer.session(str(circle)).infer([mels.numpy()])]
    for label, got in (("interpreter", outputs[0]), ("onert", onert_outputs[0])):
        assert_outputs_match([got], [expected], 1e-5, 1e-5, f"{label} speaker encoder")
        cosine = (got * expected).sum(axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(expected, axis=1)
        np.testing.assert_allclose(cosine, 1.0, atol=1e-6, err_msg=label)
