/* recipe/render.c: placeholder until the module lands. */
