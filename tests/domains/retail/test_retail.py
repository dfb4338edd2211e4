"""The localized retail domain, checked against the real source independently of the
validator: entities, exact yen, the catalog, lookups and their near misses."""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal

from conftest import PROJECT, RATE, money, strings


def users_by_name_zip(db):
    return {(u["name"]["first_name"].lower(), u["name"]["last_name"].lower(), u["address"]["zip"]): uid
            for uid, u in db["users"].items()}


def users_by_email(db):
    return {u["email"].lower(): uid for uid, u in db["users"].items()}


def golden(tasks, tool):
    for task in tasks:
        for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
            if action["name"] == tool:
                yield task["id"], action["arguments"]


def test_no_source_name_city_street_zip_or_email_survives(retail, retail_source):
    db = retail_source["db"]
    addresses = [u["address"] for u in db["users"].values()] + [o["address"] for o in db["orders"].values()]
    firsts = {u["name"]["first_name"] for u in db["users"].values()}
    lasts = {u["name"]["last_name"] for u in db["users"].values()}
    cities = {a["city"] for a in addresses} | {"Springfield"}
    streets = {a["address1"].split(" ", 1)[1] for a in addresses}
    zips = {a["zip"] for a in addresses} | {"10001", "62701", "98178", "98186"}
    locals_ = {u["email"].split("@")[0] for u in db["users"].values()}
    assert (len(firsts), len(lasts), len(cities), len(streets), len(zips)) == (30, 30, 21, 20, 610)
    terms = sorted(firsts | lasts | cities | streets | zips | locals_, key=len, reverse=True)
    word = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, terms)) + r")(?![A-Za-z0-9_])")
    out = retail.domain
    leaks = Counter()
    arithmetic = re.compile(r"[\d\s+\-*/().]+")  # calculate's yen may equal a source zip (20080)
    for text in [*strings(out.db), *strings(out.tasks), *out.policies.values()]:
        if not arithmetic.fullmatch(text):
            leaks.update(word.findall(text))
    assert not leaks
    source_hits = Counter(m for t in strings(retail_source["tasks"]) for m in word.findall(t))
    assert sum(source_hits.values()) > 300 and "98178" in source_hits and "Springfield" in source_hits


def test_every_amount_is_exactly_100_times_the_source(retail, retail_source):
    src, out = retail_source["db"], retail.domain.db
    pairs = []
    for s, o in zip(src["products"].values(), out["products"].values()):
        pairs += [(a["price"], b["price"]) for a, b in zip(s["variants"].values(), o["variants"].values())]
    for s, o in zip(src["orders"].values(), out["orders"].values()):
        pairs += [(a["price"], b["price"]) for a, b in zip(s["items"], o["items"])]
        pairs += [(a["amount"], b["amount"]) for a, b in zip(s["payment_history"], o["payment_history"])]
        if "exchange_price_difference" in s:
            pairs.append((s["exchange_price_difference"], o["exchange_price_difference"]))
    for s, o in zip(src["users"].values(), out["users"].values()):
        pairs += [(a["balance"], b["balance"]) for a, b in zip(s["payment_methods"].values(),
                                                            o["payment_methods"].values()) if "balance" in a]
    assert len(pairs) > 4800
    assert all(isinstance(o, int) and Decimal(o) == money(s) * RATE for s, o in pairs)
    # float(v) * 100 would not do: hundreds of prices are not whole after it
    assert sum(float(s) * 100 != int(Decimal(repr(s)) * 100) for s, _ in pairs if isinstance(s, float)) > 100


def test_items_cost_the_catalog_price_and_payments_keep_their_truth(retail, retail_source):
    def truths(db):
        out = []
        for order in db["orders"].values():
            for item in order["items"]:
                assert item["price"] == db["products"][item["product_id"]]["variants"][item["item_id"]]["price"]
            paid = [p["amount"] for p in order["payment_history"] if p["transaction_type"] == "payment"]
            out.append(bool(paid) and money(paid[0]) == sum(money(i["price"]) for i in order["items"]))
        return out

    before, after = truths(retail_source["db"]), truths(retail.domain.db)
    assert len(before) == 1000 and before == after
    assert sum(len(o["items"]) for o in retail.domain.db["orders"].values()) == 2978


def test_catalog_is_japanese_and_the_same_everywhere(retail, retail_source):
    out = retail.domain.db
    catalog = retail.maps.catalog
    names = {p["name"] for p in out["products"].values()}
    assert len(names) == 50 and all(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", n) for n in names)
    values = [v for p in out["products"].values() for var in p["variants"].values() for v in var["options"].values()]
    japanese = sum(bool(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", v)) for v in set(values))
    assert japanese / len(set(values)) > 0.6  # the rest are codes and numbers (4K, i7, 256GB SSD, 10)
    for order in out["orders"].values():
        for item in order["items"]:
            product = out["products"][item["product_id"]]
            assert item["name"] == product["name"]
            if item["item_id"] in product["variants"]:
                assert item["options"] == product["variants"][item["item_id"]]["options"]
    assert catalog.products["Water Bottle"] in names


def test_golden_lookups_find_the_counterpart_user_or_fail_in_both(retail, retail_source):
    src, out = retail_source["db"], retail.domain.db
    src_name, out_name = users_by_name_zip(src), users_by_name_zip(out)
    src_mail, out_mail = users_by_email(src), users_by_email(out)
    loc_user = {s: o for s, o in zip(src["users"], out["users"])}
    found = failed = 0
    pairs = zip(golden(retail_source["tasks"], "find_user_id_by_name_zip"),
                golden(retail.domain.tasks, "find_user_id_by_name_zip"))
    for (_, a), (_, b) in pairs:
        s = src_name.get((a["first_name"].lower(), a["last_name"].lower(), a["zip"]))
        o = out_name.get((b["first_name"].lower(), b["last_name"].lower(), b["zip"]))
        assert (loc_user.get(s) if s else None) == o
        found, failed = found + bool(s), failed + (not s)
    pairs = zip(golden(retail_source["tasks"], "find_user_id_by_email"),
                golden(retail.domain.tasks, "find_user_id_by_email"))
    for (_, a), (_, b) in pairs:
        s, o = src_mail.get(a["email"].lower()), out_mail.get(b["email"].lower())
        assert (loc_user.get(s) if s else None) == o
        found, failed = found + bool(s), failed + (not s)
    assert found > 60 and failed >= 3  # decoy emails and wrong zips fail on both sides


def test_decoys_stay_near_misses(retail):
    loc = __import__("jtau.swap.localizer", fromlist=["Localizer"]).Localizer(retail.maps)
    real = loc.convert("email", "aarav.santos8320@example.com")
    decoy = loc.convert("email", "aarav.santos8321@example.com")
    assert real[:-len("0@example.com")] == decoy[:-len("1@example.com")] and real != decoy
    mistyped = loc.convert("email", "daikisanchez1479@example.com")
    assert mistyped.replace("@", ".").count(".") == 2 and "." not in mistyped.split("@")[0]
    assert loc.convert("email", "silva7872@example.com") == \
        loc.convert("email", "amelia.silva7872@example.com").split(".", 1)[1]
    seattle, decoy_zip = loc.convert("zip", "98187"), loc.convert("zip", "98178")
    assert seattle[:-2] == decoy_zip[:-2] and seattle[-2:] == decoy_zip[-2:][::-1]


def test_communicate_info_is_localized_by_kind(retail):
    info = {t["id"]: (t["evaluation_criteria"] or {}).get("communicate_info") for t in retail.domain.tasks}
    catalog = retail.maps.catalog.option_values
    assert info["28"] == ["91843"]                     # 918.43 dollars
    assert info["30"] == ["746342064230"]              # a tracking number stays
    assert info["24"] == [catalog["polyester"], catalog["cotton"]]
    assert info["89"][-1] == catalog["full size"]      # "full" is the keyboard's "full size"
    assert info["43"][3:6] == ["千代田区", "東京都", retail.maps.addresses.zips["60621"]]


def test_a_catalog_map_that_is_not_one_to_one_is_an_input_error(project, tmp_path):
    from conftest import jtau

    catalog = project / "entity_maps" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("  Water Bottle: 水筒", "  Water Bottle: やかん"))
    result = jtau("localize", "retail", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert re.search(r"catalog\.yaml:\d+: products: 'Water Bottle' and 'Tea Kettle' both map to 'やかん'|"
                     r"catalog\.yaml:\d+: products: 'Tea Kettle' and 'Water Bottle' both map to 'やかん'",
                     result.stderr)
    assert not (tmp_path / "out").exists()


def test_retail_ja_runs_in_tau2_with_whole_yen_and_japanese_tools():
    import json

    from tau2.data_model.message import ToolCall

    from conftest import ROOT
    from jtau.runtime.tau2_entry import jtau_domains

    env = jtau_domains(PROJECT)["retail_ja"].get_environment()
    described = {tool.name: tool.openai_schema["function"]["description"] for tool in env.get_tools()}
    assert "注文" in described["cancel_pending_order"] and "Order" not in described["cancel_pending_order"]

    def call(name, **arguments):
        return env.get_response(ToolCall(id="1", name=name, arguments=arguments, requestor="assistant"))

    assert call("calculate", expression="262369 - 112604").content == "149765"
    user = next(iter(json.loads((ROOT / "data/domains/retail/db.json").read_text())["users"].values()))
    found = call("find_user_id_by_name_zip", first_name=user["name"]["first_name"],
                 last_name=user["name"]["last_name"], zip=user["address"]["zip"])
    assert not found.error and found.content == user["user_id"]
    listed = call("list_all_product_types").content
    assert "\\u" not in listed
    names = json.loads(listed)
    assert len(names) == 50 and "水筒" in names


def test_a_zip_given_with_two_cities_is_an_input_error(tmp_path, domains_dir):
    import json
    import shutil

    from conftest import jtau

    source = tmp_path / "domains" / "retail"
    shutil.copytree(domains_dir / "retail", source)
    db = json.loads((source / "db.json").read_text())
    order = next(o for o in db["orders"].values() if o["address"]["city"] != "Chicago")
    order["address"]["city"] = "Chicago"
    (source / "db.json").write_text(json.dumps(db))
    result = jtau("localize", "retail", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert f"orders.{order['order_id']}.address.zip" in result.stderr.replace("\n", "") or \
        "in 'Chicago' here" in result.stderr.replace("\n", "")
    assert not (tmp_path / "out").exists()


def test_two_source_values_becoming_one_lookup_key_are_reported(retail):
    from jtau.swap.localizer import Localizer

    loc = Localizer(retail.maps)
    loc.converters["email"] = lambda value: "same@example.com"  # a map gone wrong
    loc.convert("email", "mia.garcia2723@example.com")
    loc.convert("email", "mia.garcia2724@example.com")
    assert loc.collisions() == ["email: 'mia.garcia2723@example.com', 'mia.garcia2724@example.com' all become "
                                "'same@example.com'"]


def test_a_catalog_word_inside_a_longer_catalog_phrase_is_not_a_hint_of_its_own(retail):
    hints = retail.glossary.hints_in
    assert hints("You want the laptop in space grey.") == {"laptop": "ノートパソコン", "space grey": "スペースグレイ"}
    assert "grey" in hints("You want a grey one, not the space grey one.")  # a grey of its own
    assert "battery" not in hints("You ask about the speaker's battery life.")  # an option name
    assert hints("You want a lamp powered by battery.")["battery"] == "電池"
    task_75 = retail.domain.tasks[75]["user_scenario"]["instructions"]["reason_for_call"]
    assert "電池" not in task_75 and "連続再生時間" in task_75  # no gloss written for the check's sake


def test_a_customer_quoting_a_cancellation_reason_quotes_the_policys_literal(retail):
    """Bilingual review: task 90 quoted 「もう必要なくなった」「間違えて注文した」 where the policy defines
    「不要になった」（`no longer needed`）「誤って注文した」（`ordered by mistake`）."""
    policy = retail.outputs["policy.md"].decode()
    defined = dict((lit, ja) for ja, lit in re.findall(r"「([^」]+)」（`([^`]+)`）", policy))
    assert defined["no longer needed"] == "不要になった" and defined["ordered by mistake"] == "誤って注文した"
    tasks = {t["id"]: t for t in retail.domain.tasks}
    reason = tasks["90"]["user_scenario"]["instructions"]["reason_for_call"]
    assert re.findall(r"「([^」]+)」という理由", reason) == ["不要になった", "誤って注文した"]
    texts = [json.dumps(t["user_scenario"], ensure_ascii=False) for t in retail.domain.tasks]
    assert not [t for t in texts if re.search("間違えて(商品を)?注文|もう必要な", t)]
    reasons = {r"no longer need": "不要にな", r"ordered (?:\w+ ){0,3}by mistake": "誤って注文し"}
    checked = 0
    for source, target in zip(retail.source.tasks, texts):
        english = json.dumps(source["user_scenario"])
        for words, ja in reasons.items():
            if re.search(words, english):
                checked += 1
                assert ja in target, (source["id"], english[:200], target[:300])
    assert checked >= 8


def test_every_address_in_text_is_written_as_a_japanese_address(retail):
    """Bilingual review: 「東京都千代田区、紅葉台9-4-3（郵便番号101-0032）」 is an English address in Japanese
    words; a Japanese one reads 〒101-0032 東京都千代田区紅葉台9-4-3 (building and room after a space)."""
    street = re.compile(r"[一-龥ぁ-んァ-ヶー]+(?!\d{3}-\d{4}(?!\d))\d{1,3}(?:-\d{1,3}){1,3}(?![\d-])")  # 紅葉台9-4-3
    written = re.compile(r"〒\d{3}-\d{4} [^\s、「」（）]*?(" + street.pattern + ")")
    seen = 0
    for task in retail.domain.tasks:
        # the text fields (communicate_info and actions hold values)
        assertions = (task.get("evaluation_criteria") or {}).get("nl_assertions")
        text = json.dumps([task["user_scenario"]["instructions"], assertions], ensure_ascii=False)
        for m in street.finditer(text):
            seen += 1
            around = text[max(0, m.start() - 60):m.end() + 30]
            assert any(w.start(1) == m.start() for w in written.finditer(text)), around
        assert not re.search("、(?:" + street.pattern + ")", text)
    assert seen >= 4


def test_an_option_may_render_a_value_its_own_way(retail):
    """Bilingual review: the shade "medium" read 「肌の色: 中」 (the global medium -> 中); the catalog's
    option_overrides give a makeup shade its cosmetics word, everywhere the option is named."""
    from jtau.swap.localizer import Localizer

    db = json.loads(retail.outputs["db.json"])
    options = [v["options"] for p in db["products"].values() for v in p["variants"].values()]
    options += [i["options"] for o in db["orders"].values() for i in o["items"]]
    assert {o["肌の色"] for o in options if "肌の色" in o} == {"ライト", "ミディアム", "ダーク"}
    assert {o["明るさ"] for o in options if "明るさ" in o} >= {"中"}  # a lamp's medium is still 中
    loc = Localizer(retail.maps)
    assert loc.option_value("medium", "skin tone") == "ミディアム" and loc.option_value("medium", "brightness") == "中"
    text = json.dumps([t["user_scenario"] for t in retail.domain.tasks], ensure_ascii=False)
    assert "'肌の色': 'ライト'" in text and not re.search("肌の色': '(?:明るめ|中|暗め)'", text)
    from conftest import ROOT
    assert "Pounds, feet and US shoe sizes are kept" in (ROOT / "entity_maps" / "catalog.yaml").read_text()
