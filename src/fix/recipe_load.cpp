// Loads the recipes (fixes/*.yaml), the migrations (fixes/migrate.yaml) and the script library.
#include "fix/params.hpp"
#include "fix/recipe.hpp"
#include "fix/yaml_fields.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpudoctor::fix {

std::string family_name(Family f) {
  return f == Family::debian ? "debian" : "rhel";
}

const std::string& Step::body(Family f) const {
  const std::string& own = f == Family::debian ? debian : rhel;
  return own.empty() ? run : own;
}

const std::string& Step::verify_for(Family f) const {
  const std::string& own = f == Family::debian ? debian_verify : rhel_verify;
  return own.empty() ? verify : own;
}

bool Recipe::has_steps_for(Family f) const {
  return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return !s.body(f).empty(); });
}

const Recipe* RecipeBook::find(const std::string& id) const {
  for (const auto& r : recipes)
    if (r.id == id) return &r;
  return nullptr;
}

const Migration* RecipeBook::migration(const std::string& to) const {
  for (const auto& m : migrations)
    if (m.to == to) return &m;
  return nullptr;
}

namespace {

const std::set<std::string> k_not_recipes = {"fixes/catalogue.yaml", "fixes/stacks.yaml",
                                             "fixes/migrate.yaml"};

bool valid_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

void check_placeholders(const Fields& f, const char* key, const std::string& text) {
  for (const auto& name : placeholders(text))
    if (!is_known_param(name))
      f.fail(f.node()[key], "{{" + name + "}} is not a parameter (docs/fixes.md lists them)");
  // A quoted word must stand where bash reads a word; titles and descriptions are text, never run.
  if (std::string_view(key) != "title" && std::string_view(key) != "description")
    if (auto bad = misplaced_placeholder(text); !bad.empty()) f.fail(f.node()[key], bad);
}

Step read_step(const std::string& rel, const YAML::Node& node) {
  Fields f(rel, node,
           {"id", "title", "root", "destructive", "reboot", "stage", "when", "when_system_sets", "run",
            "debian", "rhel", "verify", "debian_verify", "rhel_verify"});
  Step s;
  s.id = f.text("id");
  if (!valid_id(s.id)) f.fail(node["id"], "a step id is lower-case letters, digits and '-'");
  s.title = f.text("title");
  if (!f.has("root")) f.fail(node, "step " + s.id + ": say whether it needs root (root: true or false)");
  s.root = f.flag("root");
  s.destructive = f.flag("destructive");
  s.reboot = f.flag("reboot");
  s.stage = f.text_or("stage", "");
  if (!s.stage.empty() && s.stage != "prepare" && s.stage != "cleanup" && s.stage != "after-reboot")
    f.fail(node["stage"], "stage is prepare, cleanup or after-reboot");
  s.when = f.list("when");
  for (const auto& p : s.when)
    if (!is_known_param(p)) f.fail(node["when"], "\"" + p + "\" is not a parameter");
  s.when_system_sets = f.text_or("when_system_sets", "");
  s.run = f.text_or("run", "");
  s.debian = f.text_or("debian", "");
  s.rhel = f.text_or("rhel", "");
  if (s.run.empty() && s.debian.empty() && s.rhel.empty())
    f.fail(node, "step " + s.id + " has no bash: give run, or debian and/or rhel");
  s.verify = f.text_or("verify", "");
  s.debian_verify = f.text_or("debian_verify", "");
  s.rhel_verify = f.text_or("rhel_verify", "");
  for (Family fam : {Family::debian, Family::rhel})
    if (!s.body(fam).empty() && s.verify_for(fam).empty())
      f.fail(node, "step " + s.id + " has no verify for " + family_name(fam) + ": say how it is checked");
  for (const char* key : {"title", "run", "debian", "rhel", "verify", "debian_verify", "rhel_verify"})
    if (f.has(key)) check_placeholders(f, key, f.text(key));
  s.where = f.where();
  return s;
}

Recipe read_recipe(const std::string& rel, const YAML::Node& doc) {
  Fields f(rel, doc, {"id", "title", "description", "vendor", "remedies", "include", "steps"});
  Recipe r;
  r.file = rel;
  r.id = f.text("id");
  if (!valid_id(r.id)) f.fail(doc["id"], "a recipe id is lower-case letters, digits and '-'");
  if (rel != "fixes/" + r.id + ".yaml")
    f.fail(doc["id"], "recipe " + r.id + " must be in fixes/" + r.id + ".yaml");
  r.title = f.text("title");
  r.description = f.text("description");
  check_placeholders(f, "description", r.description);
  r.vendor = f.text_or("vendor", "");
  if (!r.vendor.empty() && r.vendor != "amd" && r.vendor != "nvidia" && r.vendor != "absent" &&
      r.vendor != "present")
    f.fail(doc["vendor"], "vendor is amd, nvidia, absent or present");
  r.remedies = f.list("remedies");
  r.include = f.list("include");
  const YAML::Node steps = doc["steps"];
  if (!steps.IsSequence() || steps.size() == 0) f.fail(doc, "a recipe needs a list of steps");
  std::set<std::string> ids;
  for (const auto& node : steps) {
    Step s = read_step(rel, node);
    if (!ids.insert(s.id).second) throw DataError{s.where + ": step id " + s.id + " used twice"};
    r.steps.push_back(std::move(s));
  }
  return r;
}

void read_migrations(const std::string& rel, const YAML::Node& doc, RecipeBook& book) {
  Fields top(rel, doc, {"migrations", "check_step", "download_step"});
  const YAML::Node list = doc["migrations"];
  if (!list.IsSequence()) top.fail(doc, "\"migrations\" must be a list");
  for (const auto& node : list) {
    Fields f(rel, node, {"to", "recipes", "must_pass"});
    Migration m{f.text("to"), f.list("recipes"), f.list("must_pass")};
    for (const auto& id : m.recipes)
      if (!book.find(id)) f.fail(node["recipes"], "no recipe " + id);
    book.migrations.push_back(std::move(m));
  }
  if (!doc["check_step"].IsDefined()) top.fail(doc, "missing \"check_step\"");
  book.check_step = read_step(rel, doc["check_step"]);
  if (!doc["download_step"].IsDefined()) top.fail(doc, "missing \"download_step\"");
  book.download_step = read_step(rel, doc["download_step"]);
}

// A recipe that includes itself, directly or through others, would never finish planning: name the cycle.
void refuse_include_cycles(const RecipeBook& book) {
  std::set<std::string> done;
  std::vector<std::string> path;
  auto visit = [&](auto& self, const Recipe& r) -> void {
    if (done.count(r.id)) return;
    if (auto at = std::find(path.begin(), path.end(), r.id); at != path.end()) {
      std::vector<std::string> cycle(at, path.end());
      cycle.push_back(r.id);
      throw DataError{fmt::format("{}: its includes form a cycle: {}", r.file, fmt::join(cycle, " -> "))};
    }
    path.push_back(r.id);
    for (const auto& inc : r.include)
      self(self, *book.find(inc));
    path.pop_back();
    done.insert(r.id);
  };
  for (const auto& r : book.recipes)
    visit(visit, r);
}

} // namespace

std::expected<RecipeBook, std::string> load_recipes(const std::string& source_dir) {
  RecipeBook book;
  try {
    for (const auto& rel : list_data_files(source_dir, ".yaml")) {
      if (k_not_recipes.count(rel)) continue;
      Recipe r = read_recipe(rel, parse_yaml(rel, read_data_file(source_dir, rel)));
      if (book.find(r.id)) throw DataError{rel + ": recipe " + r.id + " defined twice"};
      book.recipes.push_back(std::move(r));
    }
    for (const auto& r : book.recipes)
      for (const auto& inc : r.include)
        if (!book.find(inc)) throw DataError{r.file + ": includes " + inc + ", which is no recipe"};
    refuse_include_cycles(book);
    const std::string rel = "fixes/migrate.yaml";
    read_migrations(rel, parse_yaml(rel, read_data_file(source_dir, rel)), book);
    book.library = read_data_file(source_dir, "fixes/lib.bash");
  } catch (const DataError& e) {
    return std::unexpected(e.message);
  } catch (const YAML::Exception& e) {
    return std::unexpected("fixes: " + e.msg);
  }
  return book;
}

} // namespace gpudoctor::fix
