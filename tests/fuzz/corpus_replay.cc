// Replays fuzz inputs (files, or every file in the folders named) through the fuzz target: the
// seed corpus runs as an ordinary test in every build, sanitizers included.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
struct FuzzStats {
  uint64_t inputs, created, failed_execute, compared;
};
extern FuzzStats g_fuzz_stats;

namespace {

bool ReadFile(const std::string& path, std::vector<uint8_t>* bytes) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return false;
  bytes->clear();
  uint8_t chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) bytes->insert(bytes->end(), chunk, chunk + n);
  fclose(f);
  return true;
}

void Collect(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR* dir = opendir(path.c_str());
  if (!dir) return;
  while (const dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') Collect(path + "/" + entry->d_name, files);
  closedir(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) Collect(argv[i], &files);
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    fprintf(stderr, "corpus_replay: no inputs found\n");
    return 1;
  }
  std::vector<uint8_t> bytes;
  for (const std::string& file : files) {
    if (!ReadFile(file, &bytes)) {
      fprintf(stderr, "corpus_replay: cannot read %s\n", file.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());  // aborts on a failed check
  }
  printf("corpus_replay: %zu inputs replayed, all checks held: %llu operators created, %llu executes refused with "
         "nothing written, %llu results equal to the scalar reference\n",
         files.size(), static_cast<unsigned long long>(g_fuzz_stats.created),
         static_cast<unsigned long long>(g_fuzz_stats.failed_execute), static_cast<unsigned long long>(g_fuzz_stats.compared));
  return 0;
}
