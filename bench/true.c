/* bench/true.c - the start-up floor of bench/run.sh: a static program (musl-gcc
 * -static) that exits at once, as true(1) does. */
int main(void) { return 0; }
