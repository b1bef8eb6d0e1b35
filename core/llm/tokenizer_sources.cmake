# Sources of the tico::llm tokenizer (tokenizer.json encode/decode). Wiring them into a target is
# left to the including CMakeLists: the library needs C++20, the include directories
# core/include and core/llm/include, and ICU (icu-uc and icu-i18n: regex and normalization), e.g.
#   find_package(ICU REQUIRED COMPONENTS uc i18n)
#   target_link_libraries(<target> PRIVATE ICU::uc ICU::i18n)
set(TICO_LLM_TOKENIZER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_added_tokens.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_bpe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_byte_level.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_decoders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_normalizers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_pattern.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_post_processor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_pre_tokenizers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_stream_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_unicode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_utf8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tokenizer_vocabulary.cpp
)
