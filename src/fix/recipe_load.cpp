// Loads the recipes (fixes/*.yaml), the migrations (fixes/migrate.yaml) and the script library.
#include "fix/params.hpp"
#include "fix/recipe.hpp"
#include "util/data_files.hpp"
#include "util/find_row.hpp"
#include "util/linear_regex.hpp"
#include "util/text.hpp"
#include "util/yaml_doc.hpp"

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
  return find_row(recipes, id, &Recipe::id);
}

const Migration* RecipeBook::migration(const std::string& to) const {
  return find_row(migrations, to, &Migration::to);
}

namespace {

const std::set<std::string> k_not_recipes = {"fixes/catalogue.yaml", "fixes/stacks.yaml",
                                             "fixes/migrate.yaml"};

bool valid_recipe_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

void check_placeholders(const yaml::Fields& f, const char* key, const std::string& text) {
  for (const auto& name : placeholders(text))
    if (!is_known_param(name))
      yaml::fail(f[key], fmt::format("{{{{{}}}}} is not a parameter (docs/fixes.md lists them)", name));
  // A quoted word must stand where bash reads a word; titles and descriptions are text, never run.
  if (std::string_view(key) != "title" && std::string_view(key) != "description")
    if (auto bad = misplaced_placeholder(text); !bad.empty()) yaml::fail(f[key], bad);
}

Step read_step(const yaml::Node& node) {
  yaml::Fields f(node,
                 {"id", "title", "root", "destructive", "reboot", "stage", "when", "when_system_sets", "run",
                  "debian", "rhel", "verify", "debian_verify", "rhel_verify", "destructive_when"});
  Step s;
  s.id = f.text("id");
  if (!valid_recipe_id(s.id)) yaml::fail(node["id"], "a step id is lower-case letters, digits and '-'");
  s.title = f.text("title");
  if (!f.has("root"))
    yaml::fail(node, fmt::format("step {}: say whether it needs root (root: true or false)", s.id));
  s.root = f.flag("root");
  s.destructive = f.flag("destructive");
  s.reboot = f.flag("reboot");
  s.stage = f.text_or("stage", "");
  if (!s.stage.empty() && s.stage != "prepare" && s.stage != "cleanup" && s.stage != "after-reboot")
    yaml::fail(node["stage"], "stage is prepare, cleanup or after-reboot");
  s.when = f.words("when");
  for (const auto& p : s.when)
    if (!is_known_param(p)) yaml::fail(node["when"], fmt::format("\"{}\" is not a parameter", p));
  s.destructive_when = f.words("destructive_when");
  for (const auto& p : s.destructive_when)
    if (!is_known_param(p)) yaml::fail(node["destructive_when"], fmt::format("\"{}\" is not a parameter", p));
  s.when_system_sets = f.text_or("when_system_sets", "");
  s.run = f.text_or("run", "");
  s.debian = f.text_or("debian", "");
  s.rhel = f.text_or("rhel", "");
  if (s.run.empty() && s.debian.empty() && s.rhel.empty())
    yaml::fail(node, fmt::format("step {} has no bash: give run, or debian and/or rhel", s.id));
  s.verify = f.text_or("verify", "");
  s.debian_verify = f.text_or("debian_verify", "");
  s.rhel_verify = f.text_or("rhel_verify", "");
  for (Family fam : {Family::debian, Family::rhel})
    if (!s.body(fam).empty() && s.verify_for(fam).empty())
      yaml::fail(node,
                 fmt::format("step {} has no verify for {}: say how it is checked", s.id, family_name(fam)));
  for (const char* key : {"title", "run", "debian", "rhel", "verify", "debian_verify", "rhel_verify"})
    if (f.has(key)) check_placeholders(f, key, f.text(key));
  s.where = node.where();
  return s;
}

Recipe read_recipe(const std::string& rel, const yaml::Node& doc) {
  // `remedies:` (before 0.2) repeated the link that checks/catalogue.yaml's `fixes:` holds: said, not
  // ignored.
  if (doc["remedies"].present())
    yaml::fail(doc["remedies"], "remedies: is gone: list the fix under the checks' fixes: in "
                                "checks/catalogue.yaml, the one place a check is linked to its fixes");
  yaml::Fields f(doc, {"id", "title", "description", "vendor", "include", "unsets", "steps"});
  Recipe r;
  r.file = rel;
  r.id = f.text("id");
  if (!valid_recipe_id(r.id)) yaml::fail(doc["id"], "a recipe id is lower-case letters, digits and '-'");
  if (rel != "fixes/" + r.id + ".yaml")
    yaml::fail(doc["id"], fmt::format("recipe {0} must be in fixes/{0}.yaml", r.id));
  r.title = f.text("title");
  r.description = f.text("description");
  check_placeholders(f, "description", r.description);
  r.vendor = f.text_or("vendor", "");
  if (!r.vendor.empty() && r.vendor != "amd" && r.vendor != "nvidia" && r.vendor != "absent" &&
      r.vendor != "present")
    yaml::fail(doc["vendor"], "vendor is amd, nvidia, absent or present");
  r.include = f.words("include");
  r.unsets = f.text_or("unsets", "");
  if (auto re = LinearRegex::compile(r.unsets); !r.unsets.empty() && !re)
    yaml::fail(doc["unsets"], fmt::format("unsets: {}", re.error()));
  const yaml::Node steps = doc["steps"];
  if (!steps.is_list() || steps.size() == 0) yaml::fail(doc, "a recipe needs a list of steps");
  std::set<std::string> ids;
  for (const auto& node : steps.items()) {
    Step s = read_step(node);
    if (!ids.insert(s.id).second) yaml::fail(node, fmt::format("step id {} used twice", s.id));
    r.steps.push_back(std::move(s));
  }
  return r;
}

void read_migrations(const yaml::Node& doc, RecipeBook& book) {
  yaml::Fields top(doc, {"migrations", "check_step", "download_step"});
  const yaml::Node list = doc["migrations"];
  if (!list.is_list()) yaml::fail(doc, "field 'migrations' must be a list");
  for (const auto& node : list.items()) {
    yaml::Fields f(node, {"to", "recipes", "must_pass"});
    Migration m{f.text("to"), f.words("recipes"), f.words("must_pass")};
    for (const auto& id : m.recipes)
      if (!book.find(id)) yaml::fail(node["recipes"], fmt::format("no recipe {}", id));
    book.migrations.push_back(std::move(m));
  }
  for (const char* key : {"check_step", "download_step"})
    if (!top.has(key)) yaml::fail(doc, fmt::format("missing required field '{}'", key));
  book.check_step = read_step(doc["check_step"]);
  book.download_step = read_step(doc["download_step"]);
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
      throw yaml::Error{fmt::format("{}: its includes form a cycle: {}", r.file, fmt::join(cycle, " -> "))};
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

// A file of fixes/ (built in, or below `source_dir`), parsed.
yaml::Node fix_document(const std::string& source_dir, const std::string& name) {
  auto doc = yaml::parse_data_file("fixes", fixes_folder(source_dir), name);
  if (!doc) throw yaml::Error{doc.error()};
  return *doc;
}

} // namespace

std::expected<RecipeBook, std::string> load_recipes(const std::string& source_dir) {
  return yaml::guarded("fixes", [&] {
    RecipeBook book;
    auto names = list_data_files("fixes", fixes_folder(source_dir), ".yaml");
    if (!names) throw yaml::Error{names.error()};
    for (const auto& name : *names) {
      std::string rel = fmt::format("fixes/{}", name);
      if (k_not_recipes.count(rel)) continue;
      Recipe r = read_recipe(rel, fix_document(source_dir, name));
      if (book.find(r.id)) throw yaml::Error{fmt::format("{}: recipe {} defined twice", rel, r.id)};
      book.recipes.push_back(std::move(r));
    }
    for (const auto& r : book.recipes)
      for (const auto& inc : r.include)
        if (!book.find(inc))
          throw yaml::Error{fmt::format("{}: includes {}, which is no recipe", r.file, inc)};
    refuse_include_cycles(book);
    read_migrations(fix_document(source_dir, "migrate.yaml"), book);
    auto library = read_data_file("fixes", fixes_folder(source_dir), "lib.bash");
    if (!library) throw yaml::Error{library.error()};
    book.library = std::move(*library);
    return book;
  });
}

} // namespace gpudoctor::fix
