#include <iostream>
#include "gpusizer/catalog.h"
int main() {
  std::cout << gpusizer::Catalog::builtin().gpus().size() << "\n";
}
