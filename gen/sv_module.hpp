// A small structured model of one SystemVerilog module, so module generators
// declare ports (single, clock/reset, or whole ready/valid bundles), parameters,
// signals and instances as data and only write the behavioural bodies as text.
// render() lays the module out in a fixed, readable order: header comment, port
// list, localparams, signals, instances, sections.
#pragma once

#include <nlohmann/json.hpp>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "sw/common/bits.hpp"

namespace cello::gen {

// "logic" for width 1, "logic [W-1:0]" otherwise.
std::string logic_type(int width);
// Number of bits needed to hold values 0..max_value (at least 1).
using cello::bits_for;
// A sized SystemVerilog literal, e.g. sv_const(8, 5) == "8'd5".
std::string sv_const(int width, long long value);

enum class Dir { In, Out };

struct Port {
  Dir dir;
  std::string name;
  int width;
  std::string comment;
};

struct Signal {
  std::string name;
  int width;
  std::string comment;
  int array_depth = 0;  // >0: unpacked array [0:depth-1]
  bool unread = false;  // driven by an instance's output that this module has no use for (see unread_signal)
};

// One payload port of a ready/valid bundle: `<prefix>_<suffix>`, `width` bits.
struct Field {
  std::string suffix;
  int width;
  std::string doc;
};

// A ready/valid bundle: the ports <prefix>_valid, <prefix>_ready, then the
// payload fields in order. Every comment is "<phrase>: <doc>", or the doc alone
// when the phrase is empty. `lanes` > 1 packs that many bundles side by side
// (one valid and one ready bit each; the payload widths are given in full).
struct Bundle {
  std::string prefix, phrase, valid_doc, ready_doc;
  std::vector<Field> payload;
  int lanes = 1;
};

struct LocalParam {
  std::string name;
  std::string value;
  std::string comment;
};

class Instance {
 public:
  Instance(std::string module, std::string name) : module_(std::move(module)), name_(std::move(name)) {}
  Instance& param(const std::string& name, const std::string& value);
  Instance& connect(const std::string& port, const std::string& expr);
  std::string render() const;
  const std::string& module() const { return module_; }

 private:
  std::string module_, name_;
  std::vector<std::pair<std::string, std::string>> params_, conns_;
};

class SvModule {
 public:
  SvModule(std::string name, std::string purpose) : name_(std::move(name)), purpose_(std::move(purpose)) {}

  const std::string& name() const { return name_; }

  // The configuration recorded in the header comment (pretty-printed JSON).
  void record_config(const nlohmann::json& cfg) { config_ = cfg; }
  // Extra free-text lines for the header (interface notes, options removed...).
  void note(const std::string& line) { notes_.push_back(line); }

  void input(const std::string& name, int width, const std::string& comment);
  void output(const std::string& name, int width, const std::string& comment);
  // The clock and synchronous active-low reset inputs (clk, rst_n).
  void clock_reset(const std::string& reset_doc = "synchronous active-low reset");
  // A ready/valid bundle received (valid and payload in, ready out) or sent
  // (valid and payload out, ready in).
  void sink(const Bundle& b) { bundle(b, Dir::In); }
  void source(const Bundle& b) { bundle(b, Dir::Out); }
  // Plain ports <prefix><suffix> of one direction, one per field, commented as
  // a bundle's are (an interface that two modules declare from one field list).
  void port_group(Dir dir, const std::string& prefix, const std::string& phrase, const std::vector<Field>& fields);
  void localparam(const std::string& name, const std::string& value, const std::string& comment);
  void signal(const std::string& name, int width, const std::string& comment);
  void array(const std::string& name, int width, int depth, const std::string& comment);
  // A signal an instance drives and this module never reads (a port of a
  // generated part that this use of it leaves idle). Its declaration carries
  // Verilator's UNUSEDSIGNAL waiver for that one signal, and `why` says why.
  void unread_signal(const std::string& name, int width, const std::string& why);
  // The returned reference stays valid while the module lives: instances are
  // kept in a deque, so adding another one never moves the earlier ones.
  Instance& instantiate(const std::string& module, const std::string& inst_name);
  // A titled block of behavioural SystemVerilog (always_ff / always_comb / assigns).
  void section(const std::string& title, const std::string& body);

  const std::vector<Port>& ports() const { return ports_; }
  // The modules this one instantiates, in instantiation order.
  std::vector<std::string> instantiated_modules() const;
  std::string render() const;
  // Whether `id` is a name inside the module: a port, parameter, signal or
  // instance, or an identifier in a section or a connection (comments and
  // literals skipped). A module that uses its own name inside hides the module
  // (Verilator's VARHIDDEN), so the config check refuses such a name.
  bool uses_identifier(const std::string& id) const;

 private:
  void port(Dir dir, const std::string& name, int width, const std::string& comment);
  void bundle(const Bundle& b, Dir flow);

  std::string name_, purpose_;
  nlohmann::json config_;
  std::vector<std::string> notes_;
  std::vector<Port> ports_;
  std::vector<LocalParam> params_;
  std::vector<Signal> signals_;
  std::deque<Instance> instances_;
  std::vector<std::pair<std::string, std::string>> sections_;
};

}  // namespace cello::gen
