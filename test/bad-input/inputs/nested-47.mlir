// 47 nested modules: within the limit, a valid module
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
