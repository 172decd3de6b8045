"""Every control of the frameworks the pack answers to, and which rules serve each: the control matrix.

The mapping has one source. A rule names the controls it serves in its own metadata (`Rule.frameworks`, e.g.
`iso27001("A.8.24")`); this module lists each framework's controls, so that the matrix also shows the controls no
rule serves, each with the reason none applies. The UAE IA Regulation's families are reached through the
ISO/IEC 27001:2022 Annex A controls each family covers (`Control.via`): a rule that cites A.8.24 serves T7.

Where the lists come from:
* UAE PDPL (Federal Decree-Law 45/2021): articles 1 to 31, as numbered and titled in the law's English text
  (table of contents, as published at uaepdpl.com; titles shortened here).
* UAE Federal Law 2/2019 (ICT in health fields): Art. 13, health data stored and processed inside the State; the
  only article of that law the pack is about.
* ISO/IEC 27001:2022 Annex A: the 93 controls (A.5.1-A.5.37, A.6.1-A.6.8, A.7.1-A.7.14, A.8.1-A.8.34), numbered
  and titled as in prowler-cloud/prowler prowler/compliance/aws/iso27001_2022_aws.json (commit f191062), which
  leaves out A.8.28, Secure coding; it is added here.
* UAE IA Regulation: the families M1-M6 (management) and T1-T9 (technical), as numbered in the UAE IA Standards
  v1.0 (NESA), chapter 5. The crosswalk to Annex A is Sahab's, by the topics of each family's sub-controls (named
  in the comments); it is not an official mapping (the Standards' own Annex C maps to ISO/IEC 27001:2005).
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import HEALTH_DATA_LAW, ISO27001, PDPL, Rule, all_rules

UAE_IA = "UAE Information Assurance Regulation"
FRAMEWORKS = (PDPL, HEALTH_DATA_LAW, ISO27001, UAE_IA)


@dataclass(frozen=True)
class Control:
    framework: str
    id: str  # "Art. 22", "A.8.24", "T7"
    title: str
    not_served: str | None = None  # why no rule applies; None when rules serve it
    via: tuple[str, ...] = ()  # UAE IA families: the Annex A controls they cover

    @property
    def key(self) -> str:
        return f"{self.framework}|{self.id}"


# Why a control has no rule, by kind: the pack judges the resources a Pulumi program declares.
_ORG = "an organisational process or record of the organisation; no resource a program declares shows it"
_PEOPLE = "a control over people (hiring, terms, training, conduct); no resource a program declares shows it"
_PHYSICAL = ("a control of the premises and equipment themselves (the cloud provider's data centres, the "
             "operator's on-prem rooms); the pack sees only where a site is (A.7.1)")
_RUNTIME = ("a control of how the running systems are operated; the pack judges what a program declares before "
            "it is deployed, not operations")
_LAW = "not an obligation on systems: it defines, scopes or enforces the law"
_RIGHTS = "a right of the data subject, answered by the controller's processes; no infrastructure setting decides it"
_NO_RULE = "applies to the fleet, but no rule of the pack judges it yet: "


def _pdpl() -> list[Control]:
    c = [
        ("Art. 1", "Definitions", _LAW),
        ("Art. 2", "Scope of application", _LAW),
        ("Art. 3", "The Data Office's power to exempt", _LAW),
        ("Art. 4", "Processing without the data subject's consent", _ORG),
        ("Art. 5", "Controls on processing personal data",
         "processing principles (lawful, for a stated purpose, accurate, kept no longer than needed, kept "
         "secure); their security part is Art. 20, whose rules are listed there"),
        ("Art. 6", "Conditions of consent", _ORG),
        ("Art. 7", "General obligations of the controller",
         "the controller's duties; the technical and organisational measures they call for are Art. 20's, whose "
         "rules are listed there"),
        ("Art. 8", "General obligations of the processor",
         "the processor's duties; the security measures they call for are Art. 20's, whose rules are listed there"),
        ("Art. 9", "Reporting a personal data breach", _ORG),
        ("Art. 10", "Appointing a data protection officer", _ORG),
        ("Art. 11", "Tasks of the data protection officer", _ORG),
        ("Art. 12", "Duties towards the data protection officer", _ORG),
        ("Art. 13", "Right to information", _RIGHTS),
        ("Art. 14", "Right to data portability", _RIGHTS),
        ("Art. 15", "Right to correction or erasure", _RIGHTS),
        ("Art. 16", "Right to restrict processing", _RIGHTS),
        ("Art. 17", "Right to stop processing", _RIGHTS),
        ("Art. 18", "Rights on automated processing", _RIGHTS),
        ("Art. 19", "Contacting the controller", _RIGHTS),
        ("Art. 20", "Security of personal data", None),
        ("Art. 21", "Data protection impact assessment",
         "an assessment the controller writes; this bundle is evidence for it, not the assessment"),
        ("Art. 22", "Cross-border transfer where protection is adequate", None),
        ("Art. 23", "Cross-border transfer where protection is not adequate",
         "the Art. 22 rules refuse every transfer outside the allowed regions and countries, adequate or not, so "
         "no transfer this article governs can be declared; those rules are listed under Art. 22"),
        ("Art. 24", "Complaints", _LAW),
        ("Art. 25", "Grievances against the Data Office's decisions", _LAW),
        ("Art. 26", "Administrative penalties", _LAW),
        ("Art. 27", "Delegation", _LAW),
        ("Art. 28", "The executive regulation", _LAW),
        ("Art. 29", "Regularisation of status", _LAW),
        ("Art. 30", "Repeals", _LAW),
        ("Art. 31", "Publication and entry into force", _LAW),
    ]
    return [Control(PDPL, i, t, r) for i, t, r in c]


def _annex_a() -> list[Control]:
    c = [
        ("A.5.1", "Policies for information security", _ORG),
        ("A.5.2", "Information security roles and responsibilities", _ORG),
        ("A.5.3", "Segregation of duties", _ORG),
        ("A.5.4", "Management responsibilities", _ORG),
        ("A.5.5", "Contact with authorities", _ORG),
        ("A.5.6", "Contact with special interest groups", _ORG),
        ("A.5.7", "Threat intelligence", _ORG),
        ("A.5.8", "Information security in project management", _ORG),
        ("A.5.9", "Inventory of information and other associated assets",
         _ORG + " (the plan's resource list in this bundle is an inventory of the infrastructure, not of "
         "information)"),
        ("A.5.10", "Acceptable use of information and other associated assets", _ORG),
        ("A.5.11", "Return of assets", _ORG),
        ("A.5.12", "Classification of information", _ORG),
        ("A.5.13", "Labelling of information", _ORG),
        ("A.5.14", "Information transfer", None),
        ("A.5.15", "Access control", _ORG + " (the rules on access restriction are under A.8.3)"),
        ("A.5.16", "Identity management", _ORG),
        ("A.5.17", "Authentication information", _ORG),
        ("A.5.18", "Access rights", _ORG),
        ("A.5.19", "Information security in supplier relationships", _ORG),
        ("A.5.20", "Addressing information security within supplier agreements", _ORG),
        ("A.5.21", "Managing information security in the ICT supply chain",
         _ORG + " (where container images may come from is judged under A.8.19 and A.8.30)"),
        ("A.5.22", "Monitoring, review and change management of supplier services", _ORG),
        ("A.5.23", "Information security for use of cloud services",
         _ORG + " (choosing and contracting a cloud service); where cloud data may sit is judged under A.5.34"),
        ("A.5.24", "Information security incident management planning and preparation", _ORG),
        ("A.5.25", "Assessment and decision on information security events", _RUNTIME),
        ("A.5.26", "Response to information security incidents", _RUNTIME),
        ("A.5.27", "Learning from information security incidents", _ORG),
        ("A.5.28", "Collection of evidence", _ORG + " (incident evidence; this bundle is compliance evidence)"),
        ("A.5.29", "Information security during disruption", _ORG),
        ("A.5.30", "ICT readiness for business continuity", _ORG),
        ("A.5.31", "Legal, statutory, regulatory and contractual requirements",
         _ORG + " (identifying the requirements); the laws this pack enforces are listed with their own articles"),
        ("A.5.32", "Intellectual property rights", _ORG),
        ("A.5.33", "Protection of records", _ORG),
        ("A.5.34", "Privacy and protection of PII", None),
        ("A.5.35", "Independent review of information security", _ORG),
        ("A.5.36", "Compliance with policies, rules and standards for information security", _ORG),
        ("A.5.37", "Documented operating procedures", _ORG),
        ("A.6.1", "Screening", _PEOPLE),
        ("A.6.2", "Terms and conditions of employment", _PEOPLE),
        ("A.6.3", "Information security awareness, education and training", _PEOPLE),
        ("A.6.4", "Disciplinary process", _PEOPLE),
        ("A.6.5", "Responsibilities after termination or change of employment", _PEOPLE),
        ("A.6.6", "Confidentiality or non-disclosure agreements", _PEOPLE),
        ("A.6.7", "Remote working", _PEOPLE),
        ("A.6.8", "Information security event reporting", _PEOPLE),
        ("A.7.1", "Physical security perimeters", None),
        ("A.7.2", "Physical entry", _PHYSICAL),
        ("A.7.3", "Securing offices, rooms and facilities", _PHYSICAL),
        ("A.7.4", "Physical security monitoring", _PHYSICAL),
        ("A.7.5", "Protecting against physical and environmental threats", _PHYSICAL),
        ("A.7.6", "Working in secure areas", _PHYSICAL),
        ("A.7.7", "Clear desk and clear screen", _PHYSICAL),
        ("A.7.8", "Equipment siting and protection", _PHYSICAL),
        ("A.7.9", "Security of assets off-premises", _PHYSICAL),
        ("A.7.10", "Storage media", _PHYSICAL + "; encryption of the disks themselves is judged under A.8.24"),
        ("A.7.11", "Supporting utilities", _PHYSICAL),
        ("A.7.12", "Cabling security", _PHYSICAL),
        ("A.7.13", "Equipment maintenance", _PHYSICAL),
        ("A.7.14", "Secure disposal or re-use of equipment", _PHYSICAL),
        ("A.8.1", "User endpoint devices", "endpoints are the users' own devices, which no fleet program declares"),
        ("A.8.2", "Privileged access rights", None),
        ("A.8.3", "Information access restriction", None),
        ("A.8.4", "Access to source code", _ORG + " (the repository host's permissions)"),
        ("A.8.5", "Secure authentication",
         _NO_RULE + "how people sign in to the clouds and clusters is set outside the program (identity "
         "provider, SSO)"),
        ("A.8.6", "Capacity management",
         _NO_RULE + "capacity is judged by `sahab plan`'s readiness verdict (in this bundle), not a policy rule"),
        ("A.8.7", "Protection against malware", _RUNTIME),
        ("A.8.8", "Management of technical vulnerabilities", _RUNTIME),
        ("A.8.9", "Configuration management", None),
        ("A.8.10", "Information deletion", _RUNTIME),
        ("A.8.11", "Data masking", "a property of the data and the applications, not of the infrastructure"),
        ("A.8.12", "Data leakage prevention",
         _NO_RULE + "egress is restricted by network rules (A.8.20, A.8.22); content inspection is not judged"),
        ("A.8.13", "Information backup", None),
        ("A.8.14", "Redundancy of information processing facilities",
         _NO_RULE + "zones and high-availability control planes are set in sahab:fleet and checked by its "
         "schema, not by a policy rule"),
        ("A.8.15", "Logging", None),
        ("A.8.16", "Monitoring activities", _RUNTIME),
        ("A.8.17", "Clock synchronisation", _RUNTIME),
        ("A.8.18", "Use of privileged utility programs", _RUNTIME),
        ("A.8.19", "Installation of software on operational systems", None),
        ("A.8.20", "Networks security", None),
        ("A.8.21", "Security of network services", _NO_RULE + "network services are judged through A.8.20's rules"),
        ("A.8.22", "Segregation of networks", None),
        ("A.8.23", "Web filtering", _RUNTIME),
        ("A.8.24", "Use of cryptography", None),
        ("A.8.25", "Secure development life cycle", _ORG),
        ("A.8.26", "Application security requirements", _ORG),
        ("A.8.27", "Secure system architecture and engineering principles", _ORG),
        ("A.8.28", "Secure coding", _ORG),
        ("A.8.29", "Security testing in development and acceptance",
         _ORG + " (running this pack on every change is one such test; its verdicts are in this bundle)"),
        ("A.8.30", "Outsourced development", None),
        ("A.8.31", "Separation of development, test and production environments",
         _NO_RULE + "dev and prod are separate stacks with their own config, not judged by a rule"),
        ("A.8.32", "Change management", _ORG),
        ("A.8.33", "Test information", _ORG),
        ("A.8.34", "Protection of information systems during audit testing", _ORG),
    ]
    return [Control(ISO27001, i, t, r) for i, t, r in c]


def _uae_ia() -> list[Control]:
    c = [
        # M1.1 entity context and leadership, M1.2 information security policy, M1.3 organisation, M1.4 support
        ("M1", "Strategy and planning", ("A.5.1", "A.5.2", "A.5.3", "A.5.4", "A.5.5", "A.5.6", "A.5.8"), _ORG),
        # risk assessment and treatment are ISO/IEC 27001 clauses 6 and 8, not Annex A controls
        ("M2", "Information security risk management", (), _ORG),
        ("M3", "Awareness and training", ("A.6.3",), _PEOPLE),
        # M4.2 prior to employment, M4.3 during employment, M4.4 termination or change of employment
        ("M4", "Human resources security", ("A.6.1", "A.6.2", "A.6.4", "A.6.5", "A.6.6"), _PEOPLE),
        # M5.2 legal requirements (data protection and privacy), M5.4 technical compliance, M5.5 audit
        ("M5", "Compliance", ("A.5.31", "A.5.32", "A.5.33", "A.5.34", "A.5.35", "A.5.36", "A.8.34"), None),
        # ISO/IEC 27001 clauses 9 and 10
        ("M6", "Performance evaluation and improvement", (), _ORG),
        # T1.2 responsibility for assets, T1.3 information classification, T1.4 media handling
        ("T1", "Asset management", ("A.5.9", "A.5.10", "A.5.11", "A.5.12", "A.5.13", "A.7.10", "A.8.10"), _ORG),
        # T2.2 secure areas, T2.3 equipment security
        ("T2", "Physical and environmental security",
         tuple(f"A.7.{n}" for n in range(1, 15)), None),
        # T3.2 operational procedures, T3.3 system planning and acceptance, T3.4 malware, T3.5 backup, T3.6 monitoring
        ("T3", "Operations management",
         ("A.5.37", "A.8.6", "A.8.7", "A.8.9", "A.8.13", "A.8.15", "A.8.16", "A.8.17", "A.8.31", "A.8.32"), None),
        # T4.2 information transfer, T4.4 information sharing protection, T4.5 network security management
        ("T4", "Communications", ("A.5.14", "A.8.12", "A.8.20", "A.8.21", "A.8.22", "A.8.23"), None),
        # T5.2 user access management, T5.4 network, T5.5 operating system, T5.6 application access, T5.7 mobile
        ("T5", "Access control",
         ("A.5.15", "A.5.16", "A.5.17", "A.5.18", "A.6.7", "A.8.1", "A.8.2", "A.8.3", "A.8.4", "A.8.5", "A.8.18"),
         None),
        # T6.2 third-party service delivery management, T6.3 cloud computing
        ("T6", "Third-party security", ("A.5.19", "A.5.20", "A.5.21", "A.5.22", "A.5.23"),
         _ORG + " (supplier and cloud contracts); where cloud data sits is judged under M5 and T4"),
        # T7.2 security requirements, T7.4 cryptographic controls, T7.5 security of system files, T7.6 development
        # and support, T7.7 technical vulnerability management, T7.8 supply chain management
        ("T7", "Information systems acquisition, development and maintenance",
         ("A.8.8", "A.8.11", "A.8.19", "A.8.24", "A.8.25", "A.8.26", "A.8.27", "A.8.28", "A.8.29", "A.8.30",
          "A.8.33"), None),
        ("T8", "Information security incident management",
         ("A.5.7", "A.5.24", "A.5.25", "A.5.26", "A.5.27", "A.5.28", "A.6.8"), _RUNTIME),
        ("T9", "Information systems continuity management", ("A.5.29", "A.5.30", "A.8.14"), _ORG),
    ]
    return [Control(UAE_IA, i, t, r, via) for i, t, via, r in c]


CONTROLS: tuple[Control, ...] = (*_pdpl(), Control(HEALTH_DATA_LAW, "Art. 13",
                                                    "Health data stored and processed inside the State"),
                                 *_annex_a(), *_uae_ia())


def control_id(reference: str) -> str:
    """The control a rule's framework reference names: `Art. 22 (cross-border transfer)` -> `Art. 22`."""
    return reference.split(" (", 1)[0].strip()


def serves(rule: Rule, control: Control) -> bool:
    """Whether a rule serves a control: it cites it, or (a UAE IA family) it cites an Annex A control it covers."""
    for f in rule.frameworks:
        cited = control_id(f.reference)
        if (f.name, cited) == (control.framework, control.id) or (f.name == ISO27001 and cited in control.via):
            return True
    return False


def rules_for(control: Control, rules: list[Rule] | None = None) -> list[Rule]:
    return [r for r in (all_rules() if rules is None else rules) if serves(r, control)]


def by_key() -> dict[str, Control]:
    return {c.key: c for c in CONTROLS}


def markdown_table() -> str:
    """The controls rules serve, for policies/README.md: `python -m policies.controls`."""
    lines = ["| framework | control | title | rules |", "|---|---|---|---|"]
    catalog = all_rules()
    for c in CONTROLS:
        rules = rules_for(c, catalog)
        if rules:
            via = f" (through {', '.join(v for v in c.via if any(serves_directly(r, v) for r in rules))})" \
                if c.via else ""
            lines.append(f"| {c.framework.split(' (')[0]} | {c.id} | {c.title} | "
                         f"{', '.join(r.id for r in rules)}{via} |")
    return "\n".join(lines) + "\n"


def serves_directly(rule: Rule, annex_a: str) -> bool:
    return any(f.name == ISO27001 and control_id(f.reference) == annex_a for f in rule.frameworks)


if __name__ == "__main__":
    print(markdown_table(), end="")
