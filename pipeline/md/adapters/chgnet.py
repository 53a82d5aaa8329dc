"""CHGNet (`chgnet`): a pretrained model of the wheel (`chgnet:0.3.0`, `chgnet:0.2.0`,
`chgnet:r2scan`: what `CHGNet.load(model_name=...)` takes) or a checkpoint file of
chgnet's trainer (`chgnet:PATH` or PATH, read by `CHGNet.from_file`), as per-atom energies.

CHGNet consumes its own `CrystalGraph` (fractional coordinates, a lattice, pymatgen's
neighbour list paired into undirected bonds, a bond graph of angles) and takes its forces
and stress through fractional coordinates and a strained lattice. None of that is used:
its modules are run here on tensors built from the protocol's full directed neighbour list,
as `CHGNet._compute` runs them (embeddings, `BondEncoder` and `AngleEncoder` expansions,
atom / bond / angle convolutions, `readout_norm`, `mlp`), up to the per-atom energies before
its mean, plus the `AtomRef` composition energy of each atom (`get_site_energies`'
`fc.weight[0, Z - 1]`). So the sum of our energies is N times CHGNet's `e` (eV/atom), and
forces and virial come from our autograd through positions and shifts.

- Bond features live on directed edges: CHGNet keeps one per undirected bond, a function of
  the bond's length and, after each `BondConv`, of the angle messages gathered at both of
  its ends. The two directions of a bond keep equal copies here: a short edge (< the bond
  cutoff, 3 A) adds its reverse's gathered messages to its own. The reverse of i -> j with
  shift s is the short edge j -> i with shift -s, found among j's short edges; a list that
  lacks it is refused at run time.
- The bond graph: every ordered pair of distinct short edges with the same centre
  (`Graph.line_graph_adjacency_list`), from the short edges grouped by centre (one argsort).
- `AtomConv` and `BondConv` are the layers' own sub-modules in their own order; their sum
  over messages is an index_add into N (or E) rows, not `functions.aggregate`, whose padding
  of `torch.bincount` to `num_owner` branches on a data-dependent size.
- With no angle at all CHGNet skips its bond and angle layers: a `where` on the count here.
- The reach: an atom's energy depends on atoms within n_conv atom cutoffs (a bond layer
  reaches one bond cutoff past the atom features of its layer, no further than the next atom
  layer goes, while the bond cutoff is at most the atom cutoff), so layers = n_conv.

Species index k is atomic number k + 1 (H..Pu, CHGNet's 94 embeddings).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch import Tensor, nn

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype

PREFIX = "chgnet:"
PAIR_TOLERANCE = 1e-4
"""A: the shifts of an edge and of its reverse are opposite to within this."""


class CHGNetEnergies(nn.Module):
    """`CHGNet._compute`'s modules up to the site energies, plus the AtomRef energies."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net
        self.bond_cutoff = float(net.graph_converter.bond_graph_cutoff)

    def forward(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        net = self.net
        src, dst = edge_index[0], edge_index[1]
        n_edges = src.shape[0]
        # CHGNet's own encoder on every directed edge: bond_vectors = (centre - neighbour) /
        # length with neighbour = positions[j] + image @ lattice (image = our shifts, lattice = I).
        bases_ag, bases_bg, unit = net.bond_basis_expansion(
            center=positions[src], neighbor=positions[dst], undirected2directed=torch.arange(n_edges),
            image=shifts, lattice=torch.eye(3, dtype=positions.dtype))
        lengths = torch.linalg.vector_norm((positions[dst] - positions[src] + shifts).detach(), dim=1)
        centres, first, second, edge, reverse = _bond_graph(src, dst, shifts.detach(), lengths < self.bond_cutoff,
                                                            positions.shape[0])
        angles = torch.ones_like(first).sum() > 0  # CHGNet skips bond and angle layers without angles
        bond_graph = torch.stack([centres, first, second], dim=1)  # AngleUpdate's [A, 3]: atom, edge, edge

        atom_feas = net.atom_embedding(species)  # species k is atomic number k + 1
        bond_feas = net.bond_embedding(bases_ag)
        weights_ag = net.bond_weights_ag(bases_ag)
        weights_bg = net.bond_weights_bg(bases_bg)
        angle_feas = net.angle_embedding(net.angle_basis_expansion(unit[first], unit[second]))
        for atom_layer, bond_layer, angle_layer in zip(net.atom_conv_layers[:-1], net.bond_conv_layers,
                                                       net.angle_layers, strict=False):
            atom_feas = _atom_conv(atom_layer, atom_feas, bond_feas, weights_ag, src, dst)
            if bond_layer is not None:
                new = _bond_conv(bond_layer, atom_feas, bond_feas, weights_bg, angle_feas, centres, first, second,
                                 edge, reverse)
                if angle_layer is not None:
                    angle_feas = angle_layer(atom_feas=atom_feas, bond_feas=new, angle_feas=angle_feas,
                                             bond_graph=bond_graph)
                bond_feas = torch.where(angles, new, bond_feas)
        atom_feas = _atom_conv(net.atom_conv_layers[-1], atom_feas, bond_feas, weights_ag, src, dst)
        if net.readout_norm is not None:
            atom_feas = net.readout_norm(atom_feas)
        energies = net.mlp(atom_feas).reshape(-1)
        if net.composition_model is not None:
            energies = energies + net.composition_model.fc.weight[0][species]
        return energies


def _atom_conv(layer: nn.Module, atom_feas: Tensor, bond_feas: Tensor, weights: Tensor, src: Tensor,
               dst: Tensor) -> Tensor:
    """`AtomConv.forward`, bond features per directed edge, its sum an index_add."""
    messages = layer.twoBody_atom(torch.cat([atom_feas[src], bond_feas, atom_feas[dst]], dim=1)) * weights
    new = torch.zeros_like(atom_feas).index_add(0, src, messages)
    if layer.use_mlp_out:
        new = layer.mlp_out(new)
    if layer.resnet:
        new = new + atom_feas
    return new if layer.atom_norm is None else layer.atom_norm(new)


def _bond_conv(layer: nn.Module, atom_feas: Tensor, bond_feas: Tensor, weights: Tensor, angle_feas: Tensor,
               centres: Tensor, first: Tensor, second: Tensor, edge: Tensor, reverse: Tensor) -> Tensor:
    """`BondConv.forward` on directed edges: the messages of the angles whose first edge is
    a bond's, gathered at both ends of the bond (the edge and its reverse)."""
    update = layer.twoBody_bond(torch.cat([bond_feas[first], bond_feas[second], angle_feas, atom_feas[centres]],
                                          dim=1)) * weights[first] * weights[second]
    gathered = torch.zeros_like(bond_feas).index_add(0, first, update)
    new = gathered.index_add(0, edge, gathered[reverse])
    if layer.use_mlp_out:
        new = layer.mlp_out(new)
    if layer.resnet:
        new = new + bond_feas
    return new if layer.bond_norm is None else layer.bond_norm(new)


def _pairs(count: Tensor, start: Tensor) -> tuple[Tensor, Tensor]:
    """(row, slot) for each row r and each slot in [start[r], start[r] + count[r])."""
    rows = torch.repeat_interleave(torch.arange(count.shape[0]), count)
    offset = torch.cumsum(count, 0) - count
    return rows, start[rows] + torch.arange(rows.shape[0]) - offset[rows]


def _bond_graph(src: Tensor, dst: Tensor, shifts: Tensor, short: Tensor,
                n_atoms: int) -> tuple[Tensor, ...]:
    """(centre, first edge, second edge) of each angle, and (edge, its reverse) of each short
    edge, in edge indices."""
    edges = torch.nonzero(short).reshape(-1)
    edges = edges[torch.argsort(src[edges], stable=True)]  # short edges grouped by centre
    centre = src[edges]
    count = torch.zeros(n_atoms, dtype=torch.int64).index_add(0, centre, torch.ones_like(centre))
    start = torch.cumsum(count, 0) - count
    rows, slots = _pairs(count[centre], start[centre])
    distinct = rows != slots
    first, second = edges[rows[distinct]], edges[slots[distinct]]
    # reverses: among the short edges centred on j, the one to i with the opposite shift
    rows, slots = _pairs(count[dst[edges]], start[dst[edges]])
    forward, backward = edges[rows], edges[slots]
    match = (dst[backward] == src[forward]) & \
        ((shifts[backward] + shifts[forward]).abs().amax(dim=1) <= PAIR_TOLERANCE)
    edge, reverse = forward[match], backward[match]
    if edge.shape[0] != edges.shape[0]:
        raise ValueError("CHGNet needs a full neighbour list: each edge i -> j (shift s) shorter than the "
                         "bond cutoff with its reverse j -> i (shift -s), once")
    return src[first], first, second, edge, reverse


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    """The CHGNet model of `source` (`chgnet:VERSION` or `chgnet:PATH`) as per-atom energies."""
    try:
        from ase.data import chemical_symbols
        from chgnet.model import CHGNet
        from chgnet.model.composition_model import AtomRef
    except ImportError as e:
        raise AdapterError(f"{source}: CHGNet models need the chgnet package (pip install chgnet): {e}") from None
    name = source[len(PREFIX):] if source.startswith(PREFIX) else source
    if not source.startswith(PREFIX) and not Path(name).is_file():
        raise AdapterError(f"{source}: a CHGNet source is chgnet:VERSION (0.3.0, 0.2.0, r2scan), "
                           "chgnet:PATH or PATH (a checkpoint of chgnet's trainer)")
    try:
        if Path(name).is_file():
            net = CHGNet.from_file(name)
        else:
            net = CHGNet.load(model_name=name, use_device="cpu", verbose=False)
    except Exception as e:  # noqa: BLE001  (an unknown name; a file of another kind, a broken pickle)
        raise AdapterError(f"{source}: not a CHGNet model; chgnet:VERSION is one of 0.3.0, 0.2.0, r2scan, "
                           f"chgnet:PATH a checkpoint of chgnet's trainer ({type(e).__name__}: {e})") from None
    if not net.mlp_first:
        raise AdapterError(f"{source}: a CHGNet readout of type {net.read_out_type!r} pools before its MLP: "
                           "no per-atom energies (pipeline takes mlp_first models, as the pretrained ones)")
    if net.composition_model is not None and not isinstance(net.composition_model, AtomRef):
        raise AdapterError(f"{source}: a {type(net.composition_model).__name__} composition model has no "
                           "per-atom energies (pipeline takes AtomRef, as the pretrained models have)")
    cutoff = float(net.graph_converter.atom_graph_cutoff)
    if net.graph_converter.bond_graph_cutoff > cutoff:
        raise AdapterError(f"{source}: bond cutoff {net.graph_converter.bond_graph_cutoff} beyond the atom "
                           f"cutoff {cutoff}: its reach is not n_conv atom cutoffs")
    net.eval()
    dtype = resolve_dtype(dtype, next(net.parameters()).dtype)
    net.to(dtype)
    for p in net.parameters():
        p.requires_grad_(False)
    n_species = net.atom_embedding.embedding.num_embeddings
    stem = Path(name).name.split(".pth")[0] if Path(name).is_file() else name
    return Adapted(
        model=CHGNetEnergies(net),
        species=tuple(chemical_symbols[1:n_species + 1]),
        cutoff=cutoff,
        layers=int(net.n_conv),
        dtype=dtype,
        name="chgnet_" + re.sub(r"\W", "_", stem.lower()),
    )


__all__ = ["CHGNetEnergies", "adapt"]
