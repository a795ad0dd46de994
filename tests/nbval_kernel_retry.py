"""A pytest plugin for ``make nbval``: a notebook kernel that dies while it
starts is started again (twice at most).

``make test`` starts many kernels at once (nbval beside the browser tests and
the unit tests). jupyter_client picks a kernel's TCP ports by asking the OS for
free ones and releasing them, so two kernels starting together can be handed
the same port; the loser exits before it answers ``kernel_info``. That says
nothing about the notebook, so nbval's start is retried; a kernel that dies
three times is still an error.
"""

from __future__ import annotations

import logging
from typing import Any

import nbval.kernel

log = logging.getLogger(__name__)
_ATTEMPTS = 3
_start_new_kernel = nbval.kernel.start_new_kernel


def _start_with_retries(*args: Any, **kwargs: Any) -> Any:
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            return _start_new_kernel(*args, **kwargs)
        except RuntimeError as exc:  # "Kernel died before replying to kernel_info"
            if attempt == _ATTEMPTS:
                raise
            log.warning("notebook kernel did not start (%s); starting it again", exc)
    raise AssertionError("unreachable")


nbval.kernel.start_new_kernel = _start_with_retries
