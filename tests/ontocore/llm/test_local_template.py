"""`--model-path`: a local model of another family is prompted in its own chat format, its GGUF's
`tokenizer.chat_template` (ontocore.llm.templates.GGUFTemplate), not the embedded model's ChatML. The live test gives the real
llama.cpp a copy of the embedded GGUF whose template is another family's (written with the `gguf` package, llama.cpp's
own GGUF writer) and checks the prompt it was given and the tool call it made. Made-up domain: a pottery's kilns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# a template in the Llama 3 style: header tags around each role, <|eot_id|> after each turn; it takes no tools
HEADERS = ("{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
           "{{ m['content'] }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}"
           "<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}")
# a template that refuses a system turn, as some do
NO_SYSTEM = ("{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}"
             "{% endif %}<turn {{ m['role'] }}>{{ m['content'] }}</turn>{% endfor %}<turn assistant>")
TOOL = {"type": "function", "function": {"name": "record_shelves", "description": "Record a kiln's shelves.",
                                         "parameters": {"type": "object", "properties": {
                                             "kiln": {"type": "string"}, "shelves": {"type": "integer"}},
                                             "required": ["kiln", "shelves"]}}}
MESSAGES = [{"role": "system", "content": "You record facts by calling tools."},
            {"role": "user", "content": "The Alpha kiln holds 36 shelves. Record it."}]


def test_a_template_renders_the_conversation_in_its_own_format() -> None:
    from ontocore.llm.templates import GGUFTemplate

    template = GGUFTemplate(HEADERS, "<|eot_id|>", "<|begin_of_text|>")
    conversation = MESSAGES + [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "record_shelves", "arguments": json.dumps({"kiln": "Alpha", "shelves": 36})}}]},
        {"role": "tool", "content": "recorded"}]
    prompt = template.render(conversation, [TOOL])
    assert prompt.startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou record facts")
    assert '"name":"record_shelves"' in prompt  # the tools, described in the system turn (it takes none itself)
    assert '<|start_header_id|>assistant<|end_header_id|>\n\n<tool_call>\n{"name": "record_shelves"' in prompt
    assert "<|start_header_id|>user<|end_header_id|>\n\n<tool_response>\nrecorded\n</tool_response><|eot_id|>" in prompt
    assert prompt.endswith("<|start_header_id|>assistant<|end_header_id|>\n\n") and "<|im_start|>" not in prompt
    assert template.stop == ["<|eot_id|>", "</tool_call>"]

    refusing = GGUFTemplate(NO_SYSTEM, "</turn>", "")
    prompt = refusing.render(MESSAGES, None)
    assert prompt == ("<turn user>You record facts by calling tools.\n\nThe Alpha kiln holds 36 shelves. Record "
                      "it.</turn><turn assistant>")


@pytest.mark.live
def test_model_path_prompts_the_model_in_its_own_template(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata

    from ontocore.errors import ModelUnavailable
    from ontocore.llm import LocalChat
    from ontocore.llm.localmodel import default_model_path

    try:
        source = default_model_path()
    except ModelUnavailable as e:
        pytest.skip(str(e))
    copy = tmp_path / "other-family.gguf"
    reader = gguf.GGUFReader(str(source), "r")
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE]
    writer = gguf.GGUFWriter(str(copy), arch=str(bytes(arch.parts[arch.data[0]]), encoding="utf-8"),
                             endianess=reader.endianess)
    copy_with_new_metadata(reader, writer, {gguf.Keys.Tokenizer.CHAT_TEMPLATE: MetadataDetails(
        gguf.GGUFValueType.STRING, HEADERS)}, [])
    chat = LocalChat(model_path=copy)
    assert chat.template is not None and chat.template.template == HEADERS
    reply = chat.chat(list(MESSAGES), tools=[TOOL], max_tokens=60)
    assert chat.last_prompt.startswith("<|start_header_id|>system<|end_header_id|>") or \
        "<|start_header_id|>system<|end_header_id|>" in chat.last_prompt
    assert "<|im_start|>" not in chat.last_prompt
    [call] = reply.tool_calls  # free, or under the grammar: a call that fits the tool
    args = json.loads(call.arguments)
    assert call.name == "record_shelves" and isinstance(args["shelves"], int) and isinstance(args["kiln"], str)
    chat.release()
    default = LocalChat()  # the embedded model: its ChatML, rendered by render_qwen
    assert default.template is None
