/* recipe/script.c: placeholder until the module lands. */
