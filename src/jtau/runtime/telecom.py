"""The `telecom_ja` environments: tau2's telecom tools, agent and phone, with their locale
facts localized.

tau2's telecom tool code writes dollars into bills and messages: `refuel_data` adds the line
item "Data refueling: 2.0 GB at $2.0/GB", `suspend_line` mentions a "$5/month" holding fee,
and the overdue-bill set-up writes "Charge for line L1002".  The overlay writes the Japanese
forms of the rules' `formats` (the same text the localization gives the source's bills) and
yen; descriptions of both toolkits are Japanese (`telecom_tools.ja.yaml`,
`telecom_user_tools.ja.yaml`).  What the phone shows (status bar, speed test) stays tau2's
English, except that a payment request names its amount in yen (tau2 writes "of 45.0 USD"
after the bill's amount, which J-tau holds in yen).
Registered as tau2 registers telecom: `telecom_ja` (manual policy), `telecom-workflow_ja`
(workflow policy), and the task sets `telecom_full_ja`, `telecom_small_ja`.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from tau2.domains.telecom.data_model import TelecomDB
from tau2.domains.telecom.environment import TelecomEnvironment
from tau2.domains.telecom.tools import TelecomTools
from tau2.domains.telecom.user_data_model import TelecomUserDB
from tau2.domains.telecom.user_tools import TelecomUserTools

from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.overlay import JapaneseJson, LocalizedTasks, descriptions, overlay_class
from jtau.swap.money import format_yen

DOMAIN = "telecom_ja"
WORKFLOW = "telecom-workflow_ja"


def _format(rules: DomainRules, fields: set[str]):
    """The line-item format with exactly these fields."""
    return next(f for f in rules.formats["line_item"] if set(f.kinds) == fields)


def tools_classes(maps: EntityMaps, rules: DomainRules) -> tuple[type, type]:
    """tau2's TelecomTools and TelecomUserTools with the overlay."""
    rate, suffix = maps.locale.currency.rate, maps.locale.currency.suffix
    holding_fee = format_yen(int(rules.tool_constants["suspension_holding_fee_per_month"] * rate), suffix)
    refuel_item, line_charge = _format(rules, {"gb", "price"}), _format(rules, {"line"})

    def yen(amount) -> str:
        return format_yen(int(Decimal(repr(float(amount))).to_integral_value()), suffix)

    def suspend_line(self, customer_id, line_id, reason):
        result = TelecomTools.suspend_line(self, customer_id, line_id, reason)
        result["message"] = f"回線の利用を停止しました。利用停止手数料として月額{holding_fee}がかかります。"
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
                                    refuel_item.render(gb=gb_amount, price=yen(plan.data_refueling_price_per_gb)))
        return {"message": f"回線{line_id}に{gb_amount}GBのデータを追加しました。料金は{yen(charge_amount)}です。",
                "new_data_refueling_gb": target_line.data_refueling_gb, "charge": charge_amount}

    def suspend_line_for_overdue_bill(self, customer_id, line_id, new_bill_id, contract_ended):
        result = TelecomTools.suspend_line_for_overdue_bill(self, customer_id, line_id, new_bill_id, contract_ended)
        bill = self._get_bill_by_id(new_bill_id)
        english = f"Charge for line {line_id}"
        for item in bill.line_items:
            if item.description == english:
                item.description = line_charge.render(line=line_id)
        return result

    agent = overlay_class(TelecomTools, "JTauTelecomTools", {"suspend_line": suspend_line, "refuel_data": refuel_data},
                          descriptions("telecom"))
    agent.suspend_line_for_overdue_bill = suspend_line_for_overdue_bill  # an env function, not a tool

    def check_payment_request(self):
        request = self._check_payment_request()
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {yen(request.amount_due)}."

    def make_payment(self):
        request = self._check_payment_request()
        if request is None:
            return "You do not have a payment request."
        self._make_payment()
        return f"Payment of {yen(request.amount_due)} has been made for bill {request.bill_id}."

    user = overlay_class(TelecomUserTools, "JTauTelecomUserTools",
                         {"check_payment_request": check_payment_request, "make_payment": make_payment},
                         descriptions("telecom_user"))
    return agent, user


class JaTelecomEnvironment(JapaneseJson, TelecomEnvironment):
    """tau2's TelecomEnvironment, with tool results in readable Japanese."""


class TelecomJa(LocalizedTasks):
    """J-tau telecom for tau2's registry: environments with the manual or the workflow policy,
    tasks and splits, all read from the localized folder."""

    def __init__(self, folder: Path, maps: EntityMaps, rules: DomainRules):
        self.folder = folder
        self.tools, self.user_tools = tools_classes(maps, rules)

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
        env = JaTelecomEnvironment(domain_name=DOMAIN if policy_type == "manual" else WORKFLOW,
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
        return [(DOMAIN, self.get_environment, self.get_tasks, self.get_tasks_split),
                (WORKFLOW, self.get_workflow_environment, self.get_tasks, self.get_tasks_split),
                ("telecom_full_ja", None, lambda: self.get_tasks("full"), None),
                ("telecom_small_ja", None, lambda: self.get_tasks("small"), None)]


def telecom_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> TelecomJa:
    """The J-tau telecom domain for tau2's registry."""
    return TelecomJa(folder, maps, rules)
