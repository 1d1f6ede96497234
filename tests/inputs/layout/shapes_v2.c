/* A second unit for shapes.c: another version of its union api_frame (see there), and a struct
 * only this unit has (pahole looks -C names up unit by unit). */
#include <stdint.h>

union api_frame { struct { uint32_t header; }; uint32_t dwords[4]; };
union api_frame api_frame_v2;
struct v2_only { int z; } v2_only;
