"""p22 with the façade's documented extra step: custom classes in state are registered with
`superstep_core.persistence.register` (a no-op import failure under real LangGraph)."""

import p22_sqlite_custom_state as p22

try:
    from superstep_core.persistence import register
except ImportError:  # real LangGraph: its serializer needs no registration
    pass
else:
    register(p22.Point)


def run() -> dict:
    return p22.run()
