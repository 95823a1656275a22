// The page-analysis networks (assets/models/page-analysis) against onnxruntime's outputs on a generated page
// (test/golden/page_nets, written by training/page_nets/convert.py), and the loader's refusals.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "page/page_nets.h"
#include "test.h"
#include "util/json.h"
#include "util/mapped_file.h"

using namespace saccade;

namespace {

const std::string kModelDir = SACCADE_SOURCE_DIR "/../assets/models/page-analysis";
const std::string kGoldenDir = SACCADE_SOURCE_DIR "/test/golden/page_nets";

template <class T>
std::vector<T> read_raw(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw sctest::Failure("missing " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

PageNets& nets() {
  static std::unique_ptr<PageNets> n = [] {
    BackendOptions o;
    o.name = "cpu";
    o.threads = 2;
    return load_page_nets(kModelDir, o);
  }();
  return *n;
}

// The largest difference from the golden rows, relative to the golden's largest magnitude.
double compare(const ConvNetMap& ours, const Json& out, const std::string& file) {
  const int rows = int(out.at("rows", "").integer("rows")), C = int(out.at("channels", "").integer("channels"));
  const int step = int(out.at("row_step", "").integer("row_step"));
  CHECK_MSG(size_t(ours.H) * ours.W == size_t(rows) && ours.C == C,
            file << ": shape " << ours.H << "x" << ours.W << "x" << ours.C << ", golden " << rows << "x" << C);
  std::vector<float> a = ours.data;
  if (out.at("softmax", "").boolean("softmax")) {
    for (int r = 0; r < rows; ++r) {
      float* v = a.data() + size_t(r) * C;
      float m = v[0], sum = 0;
      for (int c = 1; c < C; ++c) m = std::max(m, v[c]);
      for (int c = 0; c < C; ++c) sum += (v[c] = std::exp(v[c] - m));
      for (int c = 0; c < C; ++c) v[c] /= sum;
    }
  }
  const std::vector<float> golden = read_raw<float>(file);
  double worst = 0, scale = 1e-6;
  for (size_t g = 0, r = 0; r < size_t(rows); r += size_t(step), ++g)
    for (int c = 0; c < C; ++c) {
      worst = std::max(worst, double(std::fabs(a[r * C + c] - golden[g * C + c])));
      scale = std::max(scale, double(std::fabs(golden[g * C + c])));
    }
  return worst / scale;
}

}  // namespace

TEST(page_nets_match_onnxruntime_on_a_generated_page) {
  const Json index = Json::parse(read_text_file(kGoldenDir + "/index.json", kMaxTokenizerBytes));
  for (const auto& [name, cases] : index.members("index")) {
    const PageNet& net = nets().get(name);
    int k = 0;
    for (const Json& c : cases.items(name)) {
      const std::string stem = kGoldenDir + "/" + name + "." + std::to_string(k++);
      const auto& hw = c.at("image", name).items("image");
      const int h = int(hw[0].integer("h")), w = int(hw[1].integer("w"));
      const std::vector<uint8_t> image = read_raw<uint8_t>(stem + ".image.u8");
      CHECK(image.size() == size_t(h) * w);
      const std::vector<ConvNetMap> out = run_page_net(net, image.data(), h, w);
      const auto& outs = c.at("outputs", name).items("outputs");
      CHECK(out.size() == outs.size());
      for (size_t j = 0; j < outs.size(); ++j) {
        const std::string file = stem + ".out" + std::to_string(j) + ".f32";
        const double diff = compare(out[j], outs[j], file);
        CHECK_MSG(diff < 1e-4, file << ": differs from onnxruntime by " << diff << " of its range");
      }
    }
  }
}

TEST(page_nets_refuse_input_sizes_they_do_not_take) {
  const std::vector<uint8_t> grey(size_t(100) * 100, 255);
  CHECK_THROWS_WITH(run_page_net(nets().get("text_detector"), grey.data(), 100, 100), "multiples of 32");
  CHECK_THROWS_WITH(run_page_net(nets().get("layout"), grey.data(), 100, 100), "608 x 800");
  CHECK_THROWS_WITH(nets().get("nothing"), "there are: ");
  std::vector<uint8_t> big(size_t(4096) * 1056, 255);
  CHECK_THROWS_WITH(run_page_net(nets().get("text_detector"), big.data(), 4096, 1056), "out of range");
}

TEST(page_nets_refuse_a_config_that_does_not_match_its_weights) {
  const std::string dir = "/tmp/saccade-page-nets-test";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kModelDir + "/model.safetensors", dir + "/model.safetensors",
                             std::filesystem::copy_options::overwrite_existing);
  std::string config = read_text_file(kModelDir + "/config.json", kMaxConfigBytes);
  // A convolution asking for more output channels than its weight has.
  const std::string from = "\"channels\": 16,";
  const size_t at = config.find(from);
  CHECK(at != std::string::npos);
  config.replace(at, from.size(), "\"channels\": 17,");
  std::ofstream(dir + "/config.json") << config;
  BackendOptions o;
  o.name = "cpu";
  CHECK_THROWS_WITH(load_page_nets(dir, o), "has shape [16, 27], nets.text_detector.ops[0] needs [17, 27]");
}
