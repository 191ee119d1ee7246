// SPDX-License-Identifier: GPL-2.0
#include <protobuf-c/protobuf-c.h>

/* protoc-c 1.3 and later generate code that needs at least this version */
#if PROTOBUF_C_VERSION_NUMBER < 1003000
#error libprotobuf-c 1.3.0 or later is needed
#endif

int main(void)
{
	return protobuf_c_version_number() == 0;
}
