"""The `telecom_ja` environments: tau2's telecom tools, agent and phone, with their locale
facts localized.

tau2's telecom tool code writes dollars into bills and messages: `refuel_data` adds the line
item "Data refueling: 2.0 GB at $2.0/GB", `suspend_line` mentions a "$5/month" holding fee,
and the overdue-bill set-up writes "Charge for line L1002".  The overlay writes the Japanese
forms of the rules' `formats` (the same text the localization gives the source's bills) and
yen; descriptions of both toolkits are Japanese (`domains/telecom/tools.ja.yaml`,
`domains/telecom/user_tools.ja.yaml`).  What the phone shows (status bar, speed test, every message of
the customer's tools) reads in the text's language (tool_results.ja.yaml), and a payment request
names its amount in the arm's money (tau2 writes "of 45.0 USD" after the bill's amount, which
J-tau holds in yen).
Registered as tau2 registers telecom: `telecom_ja` (manual policy), `telecom-workflow_ja`
(workflow policy), and the task sets `telecom_full_ja`, `telecom_small_ja`.

Every arm (jtau.arms) the same way, `telecom_<arm>` ...: the text language chooses the
descriptions, the messages' language and the line items' frame, the entity locale the money
(yen, in the text's notation: `500円`, `¥500`; or tau2's dollars) and the phones.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from tau2.domains.telecom.data_model import TelecomDB
from tau2.domains.telecom.environment import TelecomEnvironment
from tau2.domains.telecom.tools import TelecomTools
from tau2.domains.telecom.user_data_model import TelecomUserDB
from tau2.domains.telecom.user_tools import TelecomUserTools

from jtau.arms import ARMS, JTAU_ARM, Arm
from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.overlay import JapaneseJson, LocalizedTasks, arm_descriptions, environment_class, overlay_class
from jtau.swap.money import yen_in

DOMAIN = "telecom_ja"
WORKFLOW = "telecom-workflow_ja"


def _format(rules: DomainRules, fields: set[str]):
    """The line-item format with exactly these fields."""
    return next(f for f in rules.formats["line_item"] if set(f.kinds) == fields)


def tools_classes(maps: EntityMaps, rules: DomainRules, arm: Arm | None = None) -> tuple[type, type]:
    """tau2's TelecomTools and TelecomUserTools with the overlay, for an arm (default `ja`)."""
    arm = arm or ARMS[JTAU_ARM]
    language = arm.text
    rate, suffix = maps.locale.currency.rate, maps.locale.currency.suffix
    refuel_item, line_charge = _format(rules, {"gb", "price"}), _format(rules, {"line"})

    def money(amount, language: str = language, source: str = "{}") -> str:
        """An amount of the arm's db in the text's notation; the source's as tau2 writes it."""
        if not arm.localizes_entities:
            return "$" + source.format(amount)
        return yen_in(language, int(Decimal(repr(float(amount))).to_integral_value()), suffix)

    holding_fee = money(rules.tool_constants["suspension_holding_fee_per_month"] *
                        (rate if arm.localizes_entities else 1))

    def suspend_line(self, customer_id, line_id, reason):
        result = TelecomTools.suspend_line(self, customer_id, line_id, reason)
        result["message"] = (f"回線の利用を停止しました。利用停止手数料として月額{holding_fee}がかかります。"
                             if arm.japanese_text else
                             f"Line suspended successfully. {holding_fee}/month holding fee will apply.")
        return result

    def refuel_data(self, customer_id, line_id, gb_amount):
        target_line = self._get_target_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._get_plan_by_id(target_line.plan_id)
        if not plan:
            raise ValueError("Plan not found for this line")
        charge_amount = gb_amount * plan.data_refueling_price_per_gb
        target_line.data_refueling_gb += gb_amount
        self._apply_one_time_charge(customer_id, charge_amount,
                                    refuel_item.render(language, gb=gb_amount,
                                                       price=money(plan.data_refueling_price_per_gb)))
        charge = money(charge_amount, source="{:.2f}")
        message = (f"回線{line_id}に{gb_amount}GBのデータを追加しました。料金は{charge}です。" if arm.japanese_text else
                   f"Successfully added {gb_amount} GB of data for line {line_id} for {charge}")
        return {"message": message, "new_data_refueling_gb": target_line.data_refueling_gb, "charge": charge_amount}

    def suspend_line_for_overdue_bill(self, customer_id, line_id, new_bill_id, contract_ended):
        result = TelecomTools.suspend_line_for_overdue_bill(self, customer_id, line_id, new_bill_id, contract_ended)
        bill = self._get_bill_by_id(new_bill_id)
        english = f"Charge for line {line_id}"
        for item in bill.line_items:
            if item.description == english:
                item.description = line_charge.render(language, line=line_id)
        return result

    overrides = {}
    if arm.japanese_text or arm.localizes_entities:
        overrides = {"suspend_line": suspend_line, "refuel_data": refuel_data}
    texts, document = arm_descriptions("telecom", arm, maps)
    agent = overlay_class(TelecomTools, "JTauTelecomTools", overrides, texts, document=document)
    if arm.japanese_text:
        agent.suspend_line_for_overdue_bill = suspend_line_for_overdue_bill  # an env function, not a tool

    # the phone's payment texts name an amount: written here in the text's language and the arm's
    # money (the others read through tool_results.ja.yaml)
    def check_payment_request(self):
        request = self._check_payment_request()
        if request is None:
            return "支払いの依頼は届いていません。" if arm.japanese_text else "No payment request has been made."
        amount = money(request.amount_due, source="{:.2f}")
        return (f"請求書{request.bill_id}について、{amount}の支払いの依頼が届いています。" if arm.japanese_text else
                f"You have a payment request for bill {request.bill_id} of {amount}.")

    def make_payment(self):
        request = self._check_payment_request()
        if request is None:
            return "支払いの依頼はありません。" if arm.japanese_text else "You do not have a payment request."
        self._make_payment()
        amount = money(request.amount_due, source="{:.2f}")
        return (f"請求書{request.bill_id}の{amount}の支払いが完了しました。" if arm.japanese_text else
                f"Payment of {amount} has been made for bill {request.bill_id}.")

    phone = {"check_payment_request": check_payment_request, "make_payment": make_payment} \
        if arm.localizes_entities or arm.japanese_text else {}
    texts, document = arm_descriptions("telecom", arm, maps, "user_tools")
    user = overlay_class(TelecomUserTools, "JTauTelecomUserTools", phone, texts, document=document)
    return agent, user


class JaTelecomEnvironment(JapaneseJson, TelecomEnvironment):
    """tau2's TelecomEnvironment, with tool results in readable Japanese."""


class TelecomJa(LocalizedTasks):
    """J-tau telecom (an arm of it, default `ja`) for tau2's registry: environments with the
    manual or the workflow policy, tasks and splits, all read from the arm's folder."""

    source = "telecom"

    def __init__(self, folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm | None = None):
        self.folder, self.arm = folder, arm or ARMS[JTAU_ARM]
        self.tools, self.user_tools = tools_classes(maps, rules, self.arm)
        self.environment = environment_class(JaTelecomEnvironment, self.arm, maps)
        self.names = {kind: f"{base}_{self.arm.name}" for kind, base in
                      (("manual", "telecom"), ("workflow", "telecom-workflow"), ("full", "telecom_full"),
                       ("small", "telecom_small"))}

    def _policy(self, solo_mode: bool, policy_type: str) -> str:
        main = "main_policy_solo.md" if solo_mode else "main_policy.md"
        support = {"manual": "tech_support_manual.md",
                   "workflow": "tech_support_workflow_solo.md" if solo_mode else "tech_support_workflow.md"}
        if policy_type not in support:
            raise ValueError(f"Invalid policy type: {policy_type}")
        text = {name: (self.folder / name).read_text(encoding="utf-8") for name in (main, support[policy_type])}
        return (f"<main_policy>\n{text[main]}\n</main_policy>\n"
                f"<tech_support_policy>\n{text[support[policy_type]]}\n</tech_support_policy>")

    def get_environment(self, db: TelecomDB | None = None, user_db: TelecomUserDB | None = None,
                        solo_mode: bool = False, policy_type: str = "manual") -> TelecomEnvironment:
        db = db if db is not None else TelecomDB.load(str(self.folder / "db.toml"))
        user_db = user_db if user_db is not None else TelecomUserDB.load(str(self.folder / "user_db.toml"))
        env = self.environment(domain_name=self.names["manual" if policy_type == "manual" else "workflow"],
                               policy=self._policy(solo_mode, policy_type),
                               tools=self.tools(db), user_tools=self.user_tools(user_db))
        if solo_mode:
            env.set_solo_mode(True)
        return env

    def get_workflow_environment(self, db=None, user_db=None, solo_mode: bool = False) -> TelecomEnvironment:
        return self.get_environment(db, user_db, solo_mode, policy_type="workflow")

    def registrations(self) -> list[tuple[str, object, object, object]]:
        """(name, environment constructor or None, tasks loader, splits loader) as tau2 registers
        its telecom variants."""
        names = self.names
        return [(names["manual"], self.get_environment, self.get_tasks, self.get_tasks_split),
                (names["workflow"], self.get_workflow_environment, self.get_tasks, self.get_tasks_split),
                (names["full"], None, lambda: self.get_tasks("full"), None),
                (names["small"], None, lambda: self.get_tasks("small"), None)]


def telecom_arm(folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm) -> TelecomJa:
    """An arm of J-tau telecom for tau2's registry (`en` is runtime/registration.py's)."""
    return TelecomJa(folder, maps, rules, arm)


def telecom_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> TelecomJa:
    """The J-tau telecom domain for tau2's registry."""
    return TelecomJa(folder, maps, rules)
