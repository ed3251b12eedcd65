"""What this machine is, read from the OS and the libraries, never guessed from a catalog.

Each reader returns what it found or says "unknown"; none raises on a system that lacks a file
(a container without /sys, a BLAS without threadpoolctl).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

CPUINFO = Path("/proc/cpuinfo")
MEMINFO = Path("/proc/meminfo")
CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's model name as the OS reports it (``/proc/cpuinfo``), else the platform's."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def max_hz(cpuinfo: Path = CPUINFO, cpufreq: Path = CPUFREQ) -> float | None:
    """The core's highest clock the OS reports (cpufreq's maximum, else /proc/cpuinfo's "cpu MHz",
    which a VM pins at its nominal clock), or None. The physical bounds use it (``conditions.py``)."""
    try:
        return int(cpufreq.read_text().strip()) * 1e3  # kHz
    except (OSError, ValueError):
        pass
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("cpu mhz"):
                return float(line.partition(":")[2]) * 1e6
    except (OSError, ValueError):
        pass
    return None


def vector_bits(cpuinfo: Path = CPUINFO) -> int | None:
    """The widest SIMD registers the CPU flags announce (avx512f 512, avx 256, sse2 128), or None."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.lower().startswith(("flags", "features")):
            found = set(line.partition(":")[2].split())
            for flag, bits in (("avx512f", 512), ("avx", 256), ("sse2", 128), ("asimd", 128)):
                if flag in found:
                    return bits
            return None
    return None


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def memory_bytes(meminfo: Path = MEMINFO) -> int | None:
    """Physical memory in bytes (``MemTotal``), or None where the OS does not say."""
    try:
        for line in meminfo.read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def caches(root: Path = CACHES) -> list[dict[str, Any]]:
    """The caches cpu0 sees: level, type, size in bytes and how many CPUs share it."""
    found = []
    for index in sorted(root.glob("index*")):
        try:
            level = int((index / "level").read_text().strip())
            kind = (index / "type").read_text().strip()
            size = _size_bytes((index / "size").read_text().strip())
            shared = (index / "shared_cpu_list").read_text().strip()
        except (OSError, ValueError):
            continue
        found.append({"level": level, "type": kind, "bytes": size, "shared_by": _count_cpus(shared)})
    return found


def _size_bytes(text: str) -> int:
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def _count_cpus(text: str) -> int:
    count = 0
    for part in text.split(","):
        low, _, high = part.partition("-")
        count += int(high) - int(low) + 1 if high else 1
    return count


def data_caches(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The caches that hold data (L1d, L2, L3), smallest level first."""
    return sorted((cache for cache in found if cache["type"] in ("Data", "Unified")), key=lambda c: c["level"])


def cache_text(cache: dict[str, Any]) -> str:
    """``L2 512 KiB (1 CPU)``: one cache as the node file and the page show it."""
    size = cache["bytes"]
    shown = f"{size // 1024 ** 2} MiB" if size % 1024 ** 2 == 0 else f"{size // 1024} KiB"
    kind = "d" if cache["type"] == "Data" else ("i" if cache["type"] == "Instruction" else "")
    cpus = cache["shared_by"]
    return f"L{cache['level']}{kind} {shown} ({cpus} CPU{'s' if cpus != 1 else ''})"


def blas() -> dict[str, str]:
    """The BLAS numpy calls, its version, the kernel it picked and its thread count.

    threadpoolctl (when installed) reports the library as loaded, with the kernel chosen at run
    time (``Zen``, ``Haswell``); numpy's build configuration is the fallback."""
    info = {"library": "unknown", "version": "unknown", "kernel": "unknown", "threads": "unknown"}
    try:
        from threadpoolctl import threadpool_info

        for pool in threadpool_info():
            if pool.get("user_api") == "blas":
                info.update(library=str(pool.get("internal_api", "unknown")), version=str(pool.get("version")),
                            kernel=str(pool.get("architecture", "unknown")), threads=str(pool.get("num_threads")))
                return info
    except ImportError:
        pass
    try:
        import numpy as np

        blas_config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]  # type: ignore[index]
        info.update(library=str(blas_config.get("name", "unknown")), version=str(blas_config.get("version", "unknown")),
                    kernel=str(blas_config.get("openblas configuration", "unknown")))
    except Exception:  # an older numpy without mode="dicts": the library stays unknown
        pass
    return info


def torch_version() -> str:
    """PyTorch's version when it is installed (the optional extra), else "not installed"."""
    try:
        import torch
    except ImportError:
        return "not installed"
    return str(torch.__version__)


def load_average(read: Callable[[], tuple[float, float, float]] = os.getloadavg) -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages (zeros where the OS has none)."""
    try:
        return read()
    except OSError:
        return (0.0, 0.0, 0.0)


def facts() -> dict[str, Any]:
    """Everything ``[host]`` records about the machine, before any measurement."""
    import numpy as np

    library = blas()
    memory = memory_bytes()
    found = caches()
    return {
        "cpu_model": cpu_model(),
        "architecture": platform.machine(),
        "cores": usable_cores(),
        "memory": f"{memory / 1024 ** 3:.1f} GiB" if memory else "unknown",
        "caches": [cache_text(cache) for cache in found],
        "data_cache_levels": [f"l{cache['level']}" for cache in data_caches(found)],
        "data_cache_bytes": [cache["bytes"] for cache in data_caches(found)],
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": f"{library['library']} {library['version']}",
        "blas_kernel": library["kernel"],
        "blas_default_threads": library["threads"],
        "torch": torch_version(),
        "max_hz": max_hz() or "unknown",
        "vector_bits": vector_bits() or "unknown",
    }
