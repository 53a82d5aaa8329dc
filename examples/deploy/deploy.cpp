// deploy.cpp: energy and forces of an exported model, from C++, loading its library at run
// time (dlopen) and calling it from several threads at once, each on its own output buffers.
//
// Same system file and output as deploy.c (see README.md). With THREADS > 1, every thread
// computes the same system concurrently and the program checks that all agree bit for bit.
//
// Build, for a library exported as build/lennard_jones.so with build/lennard_jones.h (the
// header gives the function types; nothing is linked but libdl):
//
//     g++ -std=c++17 -O2 -Wall -Ibuild -DMODEL=lennard_jones examples/deploy/deploy.cpp -ldl -pthread -o deploy_cpp
//     ./deploy_cpp build/lennard_jones.so system.txt 4
//
// Exit status: 0, a PIPELINE_ERROR_* code from the library, 10 for bad arguments or input,
// 11 if two threads disagree.
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifndef MODEL
#define MODEL lennard_jones
#endif
#define PASTE_(a, b) a##_##b
#define PASTE(a, b) PASTE_(a, b)
#define M(x) PASTE(MODEL, x)
#define STR_(x) #x
#define STR(x) STR_(x)
#include STR(MODEL.h)  // declares extern "C" MODEL_run & co; used here for their types only

static_assert(M(num_outputs) == 2 && M(num_output_dims) == 2, "outputs: energy (), forces (N, 3)");
using real = M(pos_t);  // float or double, as the model was compiled

struct Result {
  M(out0_t) energy = 0;
  std::vector<M(out1_t)> forces;
  int status = 0;
  std::string message;
};

template <class Function>
static Function lookup(void* library, const char* name) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "%s: %s\n", name, dlerror());
    std::exit(10);
  }
  return reinterpret_cast<Function>(symbol);
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s LIBRARY.so SYSTEM.txt [THREADS]\n", argv[0]);
    return 10;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 10;
  }
  auto run = lookup<decltype(&M(run))>(library, STR(M(run)));
  auto output_shapes = lookup<decltype(&M(output_shapes))>(library, STR(M(output_shapes)));

  std::ifstream in(argv[2]);
  int64_t n = -1, e = -1;
  in >> n >> e;
  if (!in || n < 0 || e < 0) {
    std::fprintf(stderr, "%s: cannot read the first line, \"N E\"\n", argv[2]);
    return 10;
  }
  std::vector<real> pos(3 * n);
  std::vector<int64_t> species(n), edge_index(2 * e);  // row 0: centers, row 1: neighbors
  for (int64_t i = 0; i < n; i++) {
    double x, y, z;
    in >> x >> y >> z >> species[i];
    pos[3 * i] = real(x), pos[3 * i + 1] = real(y), pos[3 * i + 2] = real(z);
  }
  for (int64_t k = 0; k < e; k++) in >> edge_index[k] >> edge_index[e + k];
  if (!in) {
    std::fprintf(stderr, "%s: truncated\n", argv[2]);
    return 10;
  }

  int64_t sizes[M(num_sizes)];
  sizes[M(size_N)] = n;
  sizes[M(size_E)] = e;
  int64_t shapes[M(num_output_dims)];
  char message[512];
  if (int status = output_shapes(sizes, shapes, message, sizeof message)) {
    std::fprintf(stderr, "error %d: %s\n", status, message);
    return status;
  }

  const unsigned threads = argc == 4 ? unsigned(std::stoul(argv[3])) : 1;
  std::vector<Result> results(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; t++)
    pool.emplace_back([&, t] {
      Result& r = results[t];
      r.forces.resize(shapes[0] * shapes[1]);
      char text[512];
      r.status = run(sizes, pos.data(), edge_index.data(),
#if M(num_inputs) == 3
                     species.data(),
#endif
                     &r.energy, r.forces.data(), text, sizeof text);
      r.message = text;
    });
  for (auto& thread : pool) thread.join();

  const Result& first = results[0];
  for (const Result& r : results) {
    if (r.status != PIPELINE_OK) {
      std::fprintf(stderr, "error %d: %s\n", r.status, r.message.c_str());
      return r.status;
    }
    if (std::memcmp(&r.energy, &first.energy, sizeof r.energy) != 0 ||
        std::memcmp(r.forces.data(), first.forces.data(), r.forces.size() * sizeof r.forces[0]) != 0) {
      std::fprintf(stderr, "threads disagree\n");
      return 11;
    }
  }
  std::printf("energy %.17g\nforces %" PRId64 "\n", double(first.energy), shapes[0]);
  for (int64_t i = 0; i < shapes[0]; i++)
    std::printf("%.17g %.17g %.17g\n", double(first.forces[3 * i]), double(first.forces[3 * i + 1]),
                double(first.forces[3 * i + 2]));
  if (threads > 1) std::fprintf(stderr, "%u threads agree\n", threads);
  dlclose(library);
  return 0;
}
