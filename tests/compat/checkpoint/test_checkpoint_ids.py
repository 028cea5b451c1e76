"""Checkpoint ids are LangGraph's uuid6: version 6, RFC 4122 variant, the step as clock
sequence, the current time, strictly increasing within a process."""

from __future__ import annotations

import time
import uuid

from langgraph.checkpoint.base.id import UUID as LangGraphUUID

from superstep_compat.pregel._checkpoint_tasks import new_checkpoint_id


def test_a_checkpoint_id_is_a_uuid6_holding_its_step_and_the_time() -> None:
    before = time.time_ns() // 100 + 0x01B21DD213814000
    text = new_checkpoint_id(7)
    after = time.time_ns() // 100 + 0x01B21DD213814000
    parsed = LangGraphUUID(text)
    assert str(parsed) == text
    assert parsed.version == 6
    assert parsed.variant == uuid.RFC_4122
    assert parsed.clock_seq == 7
    assert before <= parsed.time <= after + 1


def test_the_input_checkpoint_step_wraps_to_fourteen_bits_as_langgraph_does() -> None:
    assert LangGraphUUID(new_checkpoint_id(-1)).clock_seq == 0x3FFF
    assert LangGraphUUID(new_checkpoint_id(None)).version == 6


def test_ids_made_in_a_row_sort_in_the_order_they_were_made() -> None:
    ids = [new_checkpoint_id(i % 3) for i in range(2000)]
    times = [LangGraphUUID(i).time for i in ids]
    assert times == sorted(set(times))
    assert ids == sorted(ids)
