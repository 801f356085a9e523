"""A synthetic city of cell towers and the towers each user was seen at.

Stand-in for the (never public) CDR dataset of paper 000, Section VI-A: 1,303
towers over 128.1 km^2 and 4,427,486 users whose records have mean size 11.42,
standard deviation 17.23 and maximum 422 (Table II).

Model
-----
- The city is a square of the given area. Towers are a mixture of a 2-D
  Gaussian core in the centre and a uniform background (denser downtown).
- Homes follow a tighter mixture than the towers and workplaces a tighter one
  still (:data:`HOME_MIX`, :data:`WORK_MIX`): with more people per tower
  downtown, tower popularity varies as in the paper (its towers see 38,817
  users on average with standard deviation 50,911, a ratio of 1.31; these
  defaults give about 1.1, homes like the towers would give 0.6).
- Record sizes (distinct towers per user) follow a discretised lognormal on
  ``1 .. max_record_size`` whose two parameters are solved so that the
  truncated, discretised distribution has exactly the requested mean and
  standard deviation (the default maximum is Table II's 422).
- A user is seen at the towers of home and work, then at places drawn near
  home or work with exponential distance decay, or anywhere by population,
  until the record has its size (see :mod:`anonstudio.kernels.synth_city`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import shapely
from scipy import optimize, stats
from scipy.spatial import cKDTree

from ..jobs import ChunkSizer, NullProgress, Progress, kernel_seeds
from ..kernels.synth_city import draw_record_sizes, fill_records
from ..params import ParameterError, param, seed_param, validate
from .transactions import TransactionData

__all__ = [
    "SynthCityParams", "SynthCity", "RecordSizeStats", "PAPER_RECORD_SIZES", "generate_city",
    "record_size_pmf", "write_coordinates_csv",
]


@dataclass(frozen=True)
class SynthCityParams:
    """Shape of the synthetic city."""

    towers: int = param(1303, label="Towers", minimum=2, maximum=100_000,
                        tooltip="Number of cell towers (items). Paper 000's city has 1,303.")
    area_km2: float = param(128.0, label="Area (km²)", minimum=0.01, maximum=100_000.0, decimals=2,
                            tooltip="Area of the square city. Paper 000's towers cover 128.1 km².")
    users: int = param(100_000, label="Users", minimum=1, maximum=50_000_000, log_scale=True,
                       tooltip="Number of people (records). Paper 000 has 4,427,486.")
    mean_record_size: float = param(11.42, label="Mean record size", minimum=1.0, maximum=1000.0, decimals=2,
                                    tooltip="Average number of distinct towers per person (paper: 11.42).")
    std_record_size: float = param(17.23, label="Std. dev. of record size", minimum=0.0, maximum=1000.0,
                                   decimals=2, tooltip="Spread of the number of towers per person (paper: 17.23).")
    max_record_size: int = param(422, label="Largest record", minimum=1, maximum=100_000,
                                 tooltip="No person visits more towers than this (paper: 422); capped at the tower "
                                          "count.")
    core_fraction: float = param(0.6, label="Downtown share", minimum=0.0, maximum=1.0, decimals=2, advanced=True,
                                 tooltip="Share of towers and homes in the dense Gaussian centre; the rest spread "
                                          "evenly.")
    core_sigma: float = param(0.15, label="Downtown spread", minimum=0.01, maximum=1.0, decimals=3, advanced=True,
                              tooltip="Standard deviation of the dense centre, as a fraction of the city's side.")
    decay_m: float = param(500.0, label="Visit distance (m)", minimum=1.0, maximum=100_000.0, advanced=True,
                           tooltip="Typical distance of a visit from home or work; grows for people with many towers.")
    p_home: float = param(0.45, label="Visits near home", minimum=0.0, maximum=1.0, decimals=2, advanced=True,
                          tooltip="Chance that a visit is near home.")
    p_work: float = param(0.35, label="Visits near work", minimum=0.0, maximum=1.0, decimals=2, advanced=True,
                          tooltip="Chance that a visit is near work; the rest are anywhere in the city.")
    seed: int = seed_param(tooltip="Same seed, same city.")

    def check(self) -> None:
        if self.p_home + self.p_work > 1.0:
            raise ParameterError("Visits near home and near work cannot exceed 1 together", name="p_work")
        largest = min(self.max_record_size, self.towers)
        if self.mean_record_size > largest:
            raise ParameterError(f"Mean record size {self.mean_record_size:g} exceeds the largest possible record "
                                 f"({largest}: the smaller of the largest record and the number of towers)",
                                 name="mean_record_size")

    @property
    def side_m(self) -> float:
        return float(np.sqrt(self.area_km2 * 1e6))


@dataclass(frozen=True)
class RecordSizeStats:
    """Record-size figures, as in Table II of paper 000."""

    records: int
    mean: float
    std: float
    min: int
    max: int

    @classmethod
    def of(cls, data: TransactionData) -> RecordSizeStats:
        n = data.lengths
        if len(n) == 0:
            return cls(0, 0.0, 0.0, 0, 0)
        return cls(len(n), float(n.mean()), float(n.std()), int(n.min()), int(n.max()))


#: (extra core share, core spread factor) of homes and workplaces relative to the towers' mixture.
HOME_MIX = (0.2, 0.7)
WORK_MIX = (0.35, 0.4)

#: Table II of paper 000 (the real CDR dataset).
PAPER_RECORD_SIZES = RecordSizeStats(records=4_427_486, mean=11.42, std=17.23, min=1, max=422)


@dataclass(eq=False)
class SynthCity:
    """A generated city: the records (with tower coordinates) and its outline."""

    data: TransactionData
    boundary: shapely.Polygon
    params: SynthCityParams
    complete: bool = True
    seconds: float = 0.0
    _stats: RecordSizeStats | None = field(default=None, repr=False)

    @property
    def record_sizes(self) -> RecordSizeStats:
        if self._stats is None:
            self._stats = RecordSizeStats.of(self.data)
        return self._stats

    def report_lines(self) -> list[str]:
        s, p = self.record_sizes, PAPER_RECORD_SIZES
        return [
            f"towers: {self.data.n_items:,} over {self.params.area_km2:g} km²",
            f"users: {s.records:,}" + ("" if self.complete else " (cancelled: incomplete)"),
            f"record size: mean {s.mean:.2f} (paper {p.mean}), std {s.std:.2f} (paper {p.std}), "
            f"min {s.min}, max {s.max} (paper {p.max})",
            f"generated in {self.seconds:.1f} s",
        ]


def record_size_pmf(mean: float, std: float, max_size: int) -> np.ndarray:
    """P(size = k) for k = 1 .. max_size: a discretised lognormal with the given moments.

    Size k takes the lognormal mass of [k - 1/2, k + 1/2) (k = 1 also takes
    everything below), renormalised on ``1 .. max_size``; the lognormal's
    (mu, s) are solved so that this pmf has exactly ``mean`` and ``std``.
    """
    k = np.arange(1, max_size + 1, dtype=np.float64)
    if max_size == 1 or std <= 0:
        pmf = np.zeros(max_size)
        pmf[min(max(int(round(mean)), 1), max_size) - 1] = 1.0
        return pmf
    if not (1.0 <= mean <= max_size):
        raise ValueError(f"mean record size {mean} must lie in 1..{max_size}")

    def pmf_of(theta):
        mu, log_s = theta
        edges = np.concatenate([[0.0], k[:-1] + 0.5, [max_size + 0.5]])
        cdf = stats.lognorm.cdf(edges, s=np.exp(log_s), scale=np.exp(mu))
        mass = np.diff(cdf)
        return mass / mass.sum()

    def moments_gap(theta):
        p = pmf_of(theta)
        m = (p * k).sum()
        sd = np.sqrt(max((p * k * k).sum() - m * m, 0.0))
        return [m / mean - 1.0, sd / std - 1.0]

    s0 = np.sqrt(np.log1p((std / mean) ** 2))
    theta0 = [np.log(mean) - s0 * s0 / 2, np.log(s0)]
    sol = optimize.root(moments_gap, theta0, method="hybr")
    if not sol.success or np.max(np.abs(moments_gap(sol.x))) > 1e-6:
        raise ValueError(f"no record-size distribution on 1..{max_size} has mean {mean} and std {std}")
    return pmf_of(sol.x)


def _tower_positions(p: SynthCityParams, rng: np.random.Generator) -> np.ndarray:
    side = p.side_m
    n_core = rng.binomial(p.towers, p.core_fraction)
    core = np.empty((0, 2))
    while len(core) < n_core:
        pts = rng.normal(side / 2, p.core_sigma * side, size=(2 * (n_core - len(core)) + 8, 2))
        pts = pts[((pts >= 0) & (pts < side)).all(axis=1)]
        core = np.vstack([core, pts])[:n_core]
    background = rng.uniform(0, side, size=(p.towers - n_core, 2))
    xy = np.vstack([core, background])
    return xy[rng.permutation(len(xy))]


def tower_raster(towers: np.ndarray, side: float) -> tuple[np.ndarray, float]:
    """Nearest-tower id of every pixel; pixels ~1/16 of the mean tower spacing."""
    pixels = int(min(2048, max(256, np.ceil(16 * np.sqrt(len(towers))))))
    pixel = side / pixels
    centres = (np.arange(pixels) + 0.5) * pixel
    gx, gy = np.meshgrid(centres, centres)
    _, owner = cKDTree(towers).query(np.column_stack([gx.ravel(), gy.ravel()]))
    return np.ascontiguousarray(owner.reshape(pixels, pixels).astype(np.int32)), pixel


def generate_city(params: SynthCityParams | None = None, progress: Progress | None = None) -> SynthCity:
    """Generate towers and user records; chunked, seeded, cancellable.

    On cancel the users generated so far are returned with ``complete=False``.
    """
    p = validate(params or SynthCityParams())
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    seeds = kernel_seeds(p.seed, 2, "synth-city")
    side = p.side_m
    towers = _tower_positions(p, np.random.default_rng(int(seeds[0])))
    owner, pixel = tower_raster(towers, side)
    max_size = min(p.max_record_size, p.towers)
    cdf = np.cumsum(record_size_pmf(p.mean_record_size, p.std_record_size, max_size))
    cdf[-1] = 1.0
    home_mix, work_mix = (
        np.array([side / 2, side / 2, factor * p.core_sigma * side, min(1.0, p.core_fraction + extra)])
        for extra, factor in (HOME_MIX, WORK_MIX)
    )
    visit_mix = np.array([p.p_home, p.p_work])
    base = np.uint64(seeds[1])

    sizes = np.empty(p.users, dtype=np.int64)
    draw_record_sizes(base, 0, sizes, cdf)
    indptr = np.zeros(p.users + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    seen = np.zeros(p.towers, dtype=np.int64)
    progress.set(0.0, "placing users")
    sizer = ChunkSizer(initial=20_000, minimum=1_000)
    done = 0
    while done < p.users:
        if progress.cancelled():
            break
        n = min(sizer.next_size(), p.users - done)
        lo, hi = indptr[done], indptr[done + n]
        fill_records(base, done, indptr[done : done + n + 1] - lo, indices[lo:hi], seen, owner, pixel, side,
                     p.towers, cdf, home_mix, work_mix, visit_mix, p.decay_m, p.mean_record_size)
        sizer.done(n)
        done += n
        progress.set(done / p.users, f"{done:,} of {p.users:,} users")
    complete = done == p.users
    if not complete:
        indptr = indptr[: done + 1].copy()
        indices = indices[: indptr[-1]].copy()
    data = TransactionData(indptr, indices, tuple(str(i) for i in range(p.towers)), coords=towers,
                           name=f"synthetic city ({p.towers} towers, {done:,} users)")
    return SynthCity(data, shapely.box(0, 0, side, side), p, complete, time.perf_counter() - t0)


def write_coordinates_csv(path: str | Path, data: TransactionData) -> None:
    """Write item coordinates as CSV ``item,x,y`` (metres), atomically."""
    from .io.coordinates import Coordinates, save_coordinates

    if data.coords is None:
        raise ValueError(f"{data.name} has no item coordinates")
    save_coordinates(Coordinates(data.vocab, data.coords), path)
