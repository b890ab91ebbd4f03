// Function-length check (issue 14: generators are split into named parts).
//
//   function_length <limit> <file or folder>...
//
// Reads every .cpp/.hpp below the given paths, blanks comments, string and
// character literals and raw strings (the generators keep SystemVerilog text in
// raw strings, whose braces are not C++), then matches braces. A brace block
// whose enclosing blocks are all namespaces, classes, structs, enums or
// `extern "C"` is a function body (or a namespace-scope initializer, which is
// held to the same limit). Every body longer than <limit> lines is printed as
// "file:line: function body of N lines (limit L)" and the exit code is 1.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The source with comments and literals replaced by blanks; newlines are kept
// so that line numbers stay right.
std::string blank_literals(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  const size_t n = s.size();
  auto keep_newlines = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k)
      if (s[k] == '\n') out += '\n';
  };
  while (i < n) {
    if (s.compare(i, 2, "//") == 0) {
      const size_t j = s.find('\n', i);
      i = j == std::string::npos ? n : j;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t j = s.find("*/", i + 2);
      const size_t end = j == std::string::npos ? n : j + 2;
      keep_newlines(i, end);
      i = end;
    } else if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      const size_t open = s.find('(', i + 2);
      const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      const size_t j = s.find(close, open);
      const size_t end = j == std::string::npos ? n : j + close.size();
      out += "\"\"";
      keep_newlines(i, end);
      i = end;
    } else if (s[i] == '"' || (s[i] == '\'' && (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))))) {
      const char q = s[i];
      size_t j = i + 1;
      while (j < n && s[j] != q) j += s[j] == '\\' ? 2 : 1;
      out += q;
      out += q;
      i = j + 1;
    } else {
      out += s[i++];
    }
  }
  return out;
}

struct Block {
  bool scope;  // namespace, class, struct, enum, union or extern block
  int line;    // 1-based line of the opening brace
};

// Prints and counts the over-long bodies of one file.
int check_file(const fs::path& path, int limit) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::istringstream src(blank_literals(text.str()));
  static const std::regex scope_head(R"(^\s*(template\s*<.*>\s*)?(namespace|extern|struct|class|enum|union)\b)");
  std::vector<Block> open;
  std::string line, previous;
  int number = 0, found = 0;
  while (std::getline(src, line)) {
    ++number;
    for (char c : line) {
      if (c == '{') {
        const bool brace_only = line.find_first_not_of(" \t{") == std::string::npos;
        open.push_back({std::regex_search(brace_only ? previous : line, scope_head), number});
      } else if (c == '}' && !open.empty()) {
        const Block b = open.back();
        open.pop_back();
        bool at_scope = !b.scope;
        for (const Block& o : open) at_scope = at_scope && o.scope;
        const int length = number - b.line + 1;
        if (at_scope && length > limit) {
          std::printf("%s:%d: function body of %d lines (limit %d)\n", path.string().c_str(), b.line, length, limit);
          ++found;
        }
      }
    }
    if (line.find_first_not_of(" \t") != std::string::npos) previous = line;
  }
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: function_length <limit> <file or folder>...\n");
    return 2;
  }
  const int limit = std::atoi(argv[1]);
  int files = 0, found = 0;
  for (int a = 2; a < argc; ++a) {
    std::vector<fs::path> paths;
    if (fs::is_directory(argv[a])) {
      for (const auto& e : fs::recursive_directory_iterator(argv[a]))
        if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".hpp"))
          paths.push_back(e.path());
    } else if (fs::is_regular_file(argv[a])) {
      paths.emplace_back(argv[a]);
    } else {
      std::fprintf(stderr, "function_length: %s: no such file or folder\n", argv[a]);
      return 2;
    }
    for (const auto& p : paths) {
      ++files;
      found += check_file(p, limit);
    }
  }
  std::printf("function_length: %d files, %d function bodies over %d lines\n", files, found, limit);
  return found > 0 ? 1 : 0;
}
