# Runs one command and checks its exit code and output (stdout and stderr together).
#   -DCOMMAND=<;-list> -DEXPECT_RC=<n> [-DEXPECT_OUTPUT=<regex>] [-DFORBID_OUTPUT=<regex>]
#   [-DEXPECT_MISSING=<path>]   the command must not have created this path
# A signal (crash) never matches an expected exit code: CMake reports it as a string.
string(REPLACE "|" ";" _command "${COMMAND}")
execute_process(COMMAND ${_command} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_all "${_out}${_err}")
if(NOT "${_rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit code ${_rc}, expected ${EXPECT_RC}\ncommand: ${_command}\noutput:\n${_all}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT _all MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'\ncommand: ${_command}\noutput:\n${_all}")
endif()
if(DEFINED FORBID_OUTPUT AND _all MATCHES "${FORBID_OUTPUT}")
  message(FATAL_ERROR "output matches forbidden '${FORBID_OUTPUT}'\ncommand: ${_command}\noutput:\n${_all}")
endif()
if(DEFINED EXPECT_MISSING AND EXISTS "${EXPECT_MISSING}")
  message(FATAL_ERROR "'${EXPECT_MISSING}' exists, but the failed command must not leave output behind")
endif()
message(STATUS "ok: exit ${_rc}")
