"""Which factor moved the number: text language, entity locale, or both together.

J-tau's four arms (jtau.arms) are a 2x2 of text language x entity locale.  For each cell with
all four (model x benchmark x temperature x runtime x retrieval, and one customer of the
Japanese-text arms), per task t and arm A the gap is what the agent lost against English:

    reward     g_A(t) = reward_en(t) - reward_A(t)                  (mean reward per task)
    retention  g_A(t) = Iwithin_en(t) - Icross(en, A)(t)            (route and full level)

and the decomposition is additive by construction:

    entities     = mean g_ja-entities      (J-tau's people, places and yen, English text)
    text         = mean g_ja-text          (Japanese text, the source's entities)
    interaction  = mean (g_ja - g_ja-entities - g_ja-text)
    all          = mean g_ja               = entities + text + interaction

each with a percentile bootstrap interval over the tasks the four arms share.  Retention uses the
English side's own Iwithin as the baseline for every arm, so that the effects add up.
"""

from __future__ import annotations

import numpy as np

from jtau.retention.analysis import Group, Side, collect

ARMS = ("ja-entities", "ja-text", "ja")
EFFECTS = ("all", "entities", "text", "interaction")
TEXT_ARMS = ("ja-text", "ja")


def _interval(samples: np.ndarray) -> list[float] | None:
    samples = samples[np.isfinite(samples)]
    return [float(x) for x in np.percentile(samples, [2.5, 97.5])] if len(samples) else None


def effects(gaps: dict[str, np.ndarray], bootstrap: int, rng: np.random.Generator) -> dict:
    """The four effects and their intervals from per-task gaps of the three arms (equal length)."""
    per_task = {"all": gaps["ja"], "entities": gaps["ja-entities"], "text": gaps["ja-text"],
                "interaction": gaps["ja"] - gaps["ja-entities"] - gaps["ja-text"]}
    n = len(gaps["ja"])
    draws = rng.integers(n, size=(bootstrap, n)) if bootstrap and n > 1 else None
    return {name: {"gap": float(values.mean()),
                   "ci": _interval(values[draws].mean(axis=1)) if draws is not None else None}
            for name, values in per_task.items()}


def _sides(g: Group) -> dict[str | None, dict[str, Side]]:
    """customer -> arm -> side, for the customers with all four arms (English-text arms have one
    customer, tau2's own)."""
    english = {s.language: s for s in g.rollouts if s.language in ("en", "ja-entities")}
    out = {}
    for customer in sorted({s.user or "" for s in g.rollouts if s.language in TEXT_ARMS}):
        sides = dict(english)
        sides.update({s.language: s for s in g.rollouts if s.language in TEXT_ARMS and (s.user or "") == customer})
        if all(arm in sides for arm in ("en", *ARMS)):
            out[customer or None] = sides
    return out


def decompose(groups: dict[tuple, Group], bootstrap: int = 1000, seed: int = 0) -> list[dict]:
    out = []
    for key in sorted(groups):
        g = groups[key]
        for customer, sides in _sides(g).items():
            rng = np.random.default_rng(seed)
            base = {"model": g.model, "benchmark": g.benchmark, "temperature": g.temperature, "runtime": g.runtime,
                    "retrieval": g.retrieval, "customer": customer}
            mean_reward = {arm: {t: float(np.mean(r)) for t, r in g.rewards[side].items() if r}
                           for arm, side in sides.items()}
            shared = sorted(set.intersection(*(set(m) for m in mean_reward.values())))
            if shared:
                gaps = {arm: np.array([mean_reward["en"][t] - mean_reward[arm][t] for t in shared]) for arm in ARMS}
                out.append({**base, "measure": "reward", "tasks": len(shared),
                            "effects": effects(gaps, bootstrap, rng)})
            for level, name in ((0, "route"), (1, "full")):
                pairs = {arm: collect(g, level, sides["en"], sides[arm]) for arm in ARMS}
                shared = sorted(set.intersection(*(set(p.cross_by_task) & set(p.within_source_by_task)
                                                   for p in pairs.values())))
                if not shared:
                    continue
                gaps = {arm: np.array([p.within_source_by_task[t] - p.cross_by_task[t] for t in shared])
                        for arm, p in pairs.items()}
                out.append({**base, "measure": f"retention ({name})", "tasks": len(shared),
                            "effects": effects(gaps, bootstrap, rng)})
    return out
