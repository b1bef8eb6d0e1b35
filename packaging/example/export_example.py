#!/usr/bin/env python3
"""Exports the bundled example: a small image classifier with a dynamic batch dimension.

Writes <out>/example.pt2 (torch.export.save), the example input as input0.npy and PyTorch's
eager output as expected0.npy, so the converted Circle model can be checked against it.
"""
import argparse
import os

import numpy as np
import torch


class TinyClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc1 = torch.nn.Linear(16 * 4 * 4, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = self.pool(torch.relu(self.conv2(x)))
        x = x.reshape(x.shape[0], -1)
        x = torch.nn.functional.gelu(self.fc1(x))
        return torch.softmax(self.fc2(x), dim=-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", help="output directory")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    model = TinyClassifier().eval()
    example = torch.randn(2, 3, 16, 16)
    batch = torch.export.Dim("batch", min=1, max=32)
    program = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
    torch.export.save(program, os.path.join(args.out, "example.pt2"))
    with torch.no_grad():
        expected = model(example)
    np.save(os.path.join(args.out, "input0.npy"), example.numpy())
    np.save(os.path.join(args.out, "expected0.npy"), expected.numpy())
    print(f"exported {os.path.join(args.out, 'example.pt2')} "
          f"({sum(p.numel() for p in model.parameters())} parameters, dynamic batch)")


if __name__ == "__main__":
    main()
