// An ordinary shared library: it exports a function but no tico entry point.
extern "C" int tico_test_not_a_plugin_answer() { return 42; }
