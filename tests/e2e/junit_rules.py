"""Checks a JUnit report against the element and attribute rules of Jenkins' xunit plugin schema
(tests/data/junit/junit-10-rules.json, written from junit-10.xsd), and that no two test cases share a
classname and a name (Jenkins and GitLab would merge them). Usage: junit_rules.py RULES REPORT.xml; exits 1
naming the first rule broken."""
import json
import re
import sys
import xml.etree.ElementTree as ET

rules = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
elements = rules["elements"]
assert root.tag in rules["root"], f"the root is <{root.tag}>, not one of {rules['root']}"


def check(node, path):
    where = f"{path}/{node.tag}"
    rule = elements.get(node.tag)
    assert rule is not None, f"{where}: no such element in the schema"
    for name in node.attrib:
        assert name in rule["attributes"], f"{where}: attribute {name!r} is not allowed there"
    for name, required in rule["attributes"].items():
        assert not required or name in node.attrib, f"{where}: required attribute {name!r} is missing"
    for name, pattern in rules["typed_attributes"].get(node.tag, {}).items():
        if name in node.attrib:
            assert re.fullmatch(rules["patterns"][pattern], node.attrib[name]), \
                f"{where}: {name}={node.attrib[name]!r} is no {pattern}"
    for child in node:
        assert child.tag in rule["children"], f"{where}: <{child.tag}> may not be inside <{node.tag}>"
        check(child, where)


check(root, "")
seen = set()
for case in root.iter("testcase"):
    key = (case.get("classname"), case.get("name"))
    assert key not in seen, f"two test cases named {key}: Jenkins and GitLab would merge them"
    seen.add(key)
print(f"{len(seen)} test cases, each of its own name; the schema's rules hold")
