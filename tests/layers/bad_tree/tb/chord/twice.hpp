// Fixture: the same path under two include roots.
#pragma once
