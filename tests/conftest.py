"""Fixtures any test asks for by name, from any folder under tests/.

The helper modules beside this file import by name (``from runtime_helpers
import call``): pyproject.toml's ``pythonpath`` puts tests/ on ``sys.path``.
"""

from comm_helpers import wire
from mcp_asking import asking
from mcp_helpers import files
from openai_helpers import make_model
from openai_server import openai_server

__all__ = ["asking", "files", "make_model", "openai_server", "wire"]
